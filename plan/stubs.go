package plan

// This file declares the domain API whose bodies are being written; each
// declaration moves to its own file (validate.go, edit.go, score.go,
// ready.go, condition.go, context.go, templates.go) with its implementation.

import "time"

// Issue is one validation error or warning.
type Issue struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	StepID  string `json:"stepId,omitempty"`
	Field   string `json:"field,omitempty"`
}

// ValidationResult lists every problem found in a plan.
type ValidationResult struct {
	Valid    bool    `json:"valid"`
	Errors   []Issue `json:"errors,omitempty"`
	Warnings []Issue `json:"warnings,omitempty"`
}

// Limits bounds a plan. Zero values mean: no maximum, warn above 10 steps.
type Limits struct {
	MaxSteps  int `json:"maxSteps,omitempty"`
	WarnSteps int `json:"warnSteps,omitempty"`
}

// Validate checks p and returns every error and warning.
func Validate(p Plan, lim Limits) ValidationResult { panic("unimplemented") }

// Clone returns a deep copy of p.
func (p Plan) Clone() Plan { panic("unimplemented") }

// StepByID returns the step with the id, or nil.
func (p *Plan) StepByID(id string) *Step { panic("unimplemented") }

// InsertAfter inserts s after the step afterID.
func (p *Plan) InsertAfter(afterID string, s Step, c Change) error { panic("unimplemented") }

// InsertBefore inserts s before the step beforeID.
func (p *Plan) InsertBefore(beforeID string, s Step, c Change) error { panic("unimplemented") }

// Append adds s at the end.
func (p *Plan) Append(s Step, c Change) error { panic("unimplemented") }

// Remove removes the step id.
func (p *Plan) Remove(id string, c Change) error { panic("unimplemented") }

// RemoveAfter removes every step after id.
func (p *Plan) RemoveAfter(id string, c Change) error { panic("unimplemented") }

// UpdateStep changes the non-zero fields of patch on step id.
func (p *Plan) UpdateStep(id string, patch Step, c Change) error { panic("unimplemented") }

// Apply applies edits all or nothing.
func (p *Plan) Apply(edits []Edit, c Change) error { panic("unimplemented") }

// Replan replaces every step not yet started with steps.
func (p *Plan) Replan(steps []Step, c Change) error { panic("unimplemented") }

// Skip marks pending steps skipped.
func (p *Plan) Skip(ids []string, c Change) error { panic("unimplemented") }

// Ready returns the ids of pending steps that may run now.
func (p *Plan) Ready() []string { panic("unimplemented") }

// Blocked returns the ids of pending steps that can never run because a
// dependency failed or was cancelled.
func (p *Plan) Blocked() []string { panic("unimplemented") }

// Totals counts steps by status.
type Totals struct {
	Total     int `json:"total"`
	Pending   int `json:"pending"`
	Running   int `json:"running"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Cancelled int `json:"cancelled"`
}

// Totals counts p's steps by status.
func (p *Plan) Totals() Totals { panic("unimplemented") }

// Percent is the share of steps done, 0 to 100.
func (p *Plan) Percent() int { panic("unimplemented") }

// Metrics sums the step results.
func (p *Plan) Metrics() Metrics { panic("unimplemented") }

// EstimatedRemaining sums the estimates of steps not done.
func (p *Plan) EstimatedRemaining() Duration { panic("unimplemented") }

// Score scores an option 0..100.
func Score(o Option) float64 { panic("unimplemented") }

// Rank scores, sorts, ranks and recommends.
func Rank(opts []Option) []Option { panic("unimplemented") }

// Comparison is the options' comparison matrix.
type Comparison struct {
	Criteria []string        `json:"criteria"`
	Rows     []ComparisonRow `json:"rows"`
	Summary  string          `json:"summary,omitempty"`
}

// ComparisonRow is one option's row.
type ComparisonRow struct {
	OptionID string           `json:"optionId"`
	Title    string           `json:"title"`
	Cells    []ComparisonCell `json:"cells"`
}

// ComparisonCell is one criterion's value for one option.
type ComparisonCell struct {
	Criterion string  `json:"criterion"`
	Value     string  `json:"value"`
	Score     float64 `json:"score"`
}

// Compare builds the comparison matrix.
func Compare(opts []Option) Comparison { panic("unimplemented") }

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
