package reply

import (
	"encoding/json"

	"github.com/planmode/planmode/plan"
)

// The struct tags beside json feed the schemas (see schema.go): enum lists
// the values a field takes (plan's constants, checked by a test), and
// required:"false" leaves out of "required" a field that has no omitempty
// but may be missing, as the checks fill or ignore it.

// Clarify is the model's answer to a clarify request.
type Clarify struct {
	// Goal is the clarified goal.
	Goal string `json:"goal"`
	// NeedsPlan is false when DirectAnswer answers the goal outright.
	NeedsPlan    bool     `json:"needsPlan"`
	DirectAnswer string   `json:"directAnswer,omitempty"`
	Questions    []string `json:"questions,omitempty"`
}

// Options is the model's answer to a plan request.
type Options struct {
	Options []Option `json:"options"`
}

// Option is one option as the model writes it: a plan with its trade-offs.
type Option struct {
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Pros        []string  `json:"pros" required:"false"`
	Cons        []string  `json:"cons" required:"false"`
	Steps       []Step    `json:"steps"`
	Risks       []Risk    `json:"risks" required:"false"`
	Estimates   Estimates `json:"estimates" required:"false"`
}

// Risk is one risk of an option, as plan.Risk.
type Risk struct {
	Description string              `json:"description"`
	Impact      plan.RiskImpact     `json:"impact" enum:"low,medium,high,critical"`
	Likelihood  plan.RiskLikelihood `json:"likelihood" enum:"low,medium,high"`
	Mitigation  string              `json:"mitigation,omitempty"`
}

// Estimates are what the model expects an option to take.
type Estimates struct {
	// DurationMinutes is the expected wall time.
	DurationMinutes float64         `json:"durationMinutes" required:"false"`
	Complexity      plan.Complexity `json:"complexity" required:"false" enum:"low,medium,high,very_high"`
	// Confidence is between 0 and 1.
	Confidence float64 `json:"confidence" required:"false"`
}

// Step is one step as the model writes it.
type Step struct {
	ID          string        `json:"id" required:"false"`
	Title       string        `json:"title"`
	Description string        `json:"description" required:"false"`
	Kind        plan.StepKind `json:"kind" required:"false" enum:"file_operation,shell_command,code_generation,code_analysis,validation,testing"`
	Action      plan.Action   `json:"action" enum:"llm,tool,agent"`
	Config      StepConfig    `json:"config"`
	// DependsOn lists the ids of the steps this one needs; an empty list
	// says the step is independent and may run beside others. The schema
	// asks for it on every step. A pointer, so that a step that leaves the
	// field out (nil) is told apart from one that gives [] (see PlanSteps).
	DependsOn *[]string `json:"dependsOn,omitempty" required:"true"`
	// MaxRetries is how many more tries the step gets after a failed one.
	MaxRetries int `json:"maxRetries,omitempty"`
	// RetryDelay is the wait between tries, a Go duration such as "2s".
	// It is a string here, not a plan.Duration, so that the schema says
	// string and Check can tell the model what it wrote wrong.
	RetryDelay string `json:"retryDelay,omitempty"`
	// FallbackStepID names a step of the same plan that runs in this
	// one's place when it fails after its retries, as in plan.Step; the
	// fallback step runs only that way.
	FallbackStepID string `json:"fallbackStepId,omitempty"`
	// SkipCondition is an expression over earlier steps (plan.EvalCondition)
	// under which the step is skipped, e.g. "s2.filesChanged == 0".
	SkipCondition string `json:"skipCondition,omitempty"`
	Skippable     bool   `json:"skippable,omitempty"`
	// EstimatedSeconds is the expected wall time.
	EstimatedSeconds float64 `json:"estimatedSeconds,omitempty"`
}

// StepConfig is a step's config as the model writes it: the one of
// plan.StepConfig that its action needs.
type StepConfig struct {
	LLM   *plan.LLMConfig   `json:"llm,omitempty"`
	Tool  *ToolConfig       `json:"tool,omitempty"`
	Agent *plan.AgentConfig `json:"agent,omitempty"`
}

// ToolConfig is a tool step's config, as plan.ToolConfig. Params is kept
// raw: they are the tool's own arguments, any JSON object (Check refuses
// anything else).
type ToolConfig struct {
	Name           string          `json:"name"`
	Params         json.RawMessage `json:"params,omitempty"`
	ValidateOutput bool            `json:"validateOutput,omitempty"`
}

// Deps returns a DependsOn value naming ids: Deps() is an independent
// step (an empty list, not an absent field).
func Deps(ids ...string) *[]string {
	out := append([]string{}, ids...)
	return &out
}

// Reflect is the model's answer to a reflect request.
type Reflect struct {
	Decision   plan.Decision `json:"decision" enum:"continue,skip,insert,append,remove,update,replan,complete"`
	StepIDs    []string      `json:"stepIds,omitempty"`
	Reason     string        `json:"reason"`
	Confidence float64       `json:"confidence,omitempty"`
	Edits      []Edit        `json:"edits,omitempty"`
	Steps      []Step        `json:"steps,omitempty"`
	Response   string        `json:"response,omitempty"`
}

// Edit is one change to the plan a reflection asks for, as plan.Edit:
// StepID is the anchor or the target, Step the new step or, for an update,
// the fields to change.
type Edit struct {
	Op     plan.EditOp `json:"op" enum:"insertAfter,insertBefore,append,remove,removeAfter,update"`
	StepID string      `json:"stepId,omitempty"`
	Step   *Step       `json:"step,omitempty"`
}
