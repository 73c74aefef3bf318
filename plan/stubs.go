package plan

// This file declares the domain API whose bodies are being written; each
// declaration moves to its own file (validate.go, edit.go, score.go,
// ready.go, condition.go, context.go, templates.go) with its implementation.

import "time"

// CheckCondition reports whether expr is a well-formed skip condition
// naming only steps in ids.
func CheckCondition(expr string, ids map[string]bool) error { return nil }

// EvalCondition evaluates a skip condition against p.
func EvalCondition(expr string, p *Plan) (bool, error) { panic("unimplemented") }

// StepContext is the bounded context a step's prompt carries.
type StepContext struct {
	Goal         string       `json:"goal"`
	Step         Step         `json:"step"`
	Position     int          `json:"position"`
	Total        int          `json:"total"`
	Before       []StepDigest `json:"before,omitempty"`
	After        []StepDigest `json:"after,omitempty"`
	EarlierCount int          `json:"earlierCount,omitempty"`
	LaterCount   int          `json:"laterCount,omitempty"`
	Summary      string       `json:"summary,omitempty"`
}

// StepDigest is a short account of a neighbouring step.
type StepDigest struct {
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Status StepStatus `json:"status"`
	Digest string     `json:"digest,omitempty"`
}

// BuildStepContext returns the bounded context for step id.
func BuildStepContext(goal string, p *Plan, id string) StepContext { panic("unimplemented") }

// Template is a ready-made plan for a common kind of task.
type Template struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Keywords    []string `json:"keywords"`
	Steps       []Step   `json:"steps"`
}

// Templates returns the built-in templates.
func Templates() []Template { panic("unimplemented") }

// TemplateByName returns a template by name.
func TemplateByName(name string) (Template, bool) { panic("unimplemented") }

// DetectTaskType returns the template name that fits goal.
func DetectTaskType(goal string) (string, bool) { panic("unimplemented") }

// FromTemplate fills a template for a task.
func FromTemplate(t Template, task Task, planID string, now time.Time) Plan { panic("unimplemented") }
