package offline

import "github.com/planmode/planmode/plan"

// The JSON replies the offline brain writes. They mirror the reply types
// of the activities package (ClarifyReply, OptionsReply, OptionReply,
// StepReply, ReflectReply) field for field; the contract test checks that
// they decode into them. The offline model does not import activities so that the
// activities' own tests can use this server without an import cycle.

// Phases as named by the phase line of planmode's requests.
const (
	PhaseClarify   = "clarify"
	PhasePlan      = "plan"
	PhaseExecute   = "execute"
	PhaseAgent     = "agent"
	PhaseReflect   = "reflect"
	PhaseSummarize = "summarize"
)

// clarifyReply mirrors activities.ClarifyReply.
type clarifyReply struct {
	Goal         string   `json:"goal"`
	NeedsPlan    bool     `json:"needsPlan"`
	DirectAnswer string   `json:"directAnswer,omitempty"`
	Questions    []string `json:"questions,omitempty"`
}

// optionsReply mirrors activities.OptionsReply.
type optionsReply struct {
	Options []optionReply `json:"options"`
}

// optionReply mirrors activities.OptionReply.
type optionReply struct {
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Pros        []string    `json:"pros"`
	Cons        []string    `json:"cons"`
	Steps       []stepReply `json:"steps"`
	Risks       []plan.Risk `json:"risks"`
	Estimates   estimates   `json:"estimates"`
}

// estimates mirrors activities.OptionReply's Estimates.
type estimates struct {
	DurationMinutes float64         `json:"durationMinutes"`
	Complexity      plan.Complexity `json:"complexity"`
	Confidence      float64         `json:"confidence"`
}

// stepReply mirrors activities.StepReply.
type stepReply struct {
	ID               string          `json:"id"`
	Title            string          `json:"title"`
	Description      string          `json:"description"`
	Kind             plan.StepKind   `json:"kind"`
	Action           plan.Action     `json:"action"`
	Config           plan.StepConfig `json:"config"`
	DependsOn        []string        `json:"dependsOn,omitempty"`
	MaxRetries       int             `json:"maxRetries,omitempty"`
	Skippable        bool            `json:"skippable,omitempty"`
	EstimatedSeconds float64         `json:"estimatedSeconds,omitempty"`
}

// reflectReply mirrors activities.ReflectReply.
type reflectReply struct {
	Decision   plan.Decision `json:"decision"`
	StepIDs    []string      `json:"stepIds,omitempty"`
	Reason     string        `json:"reason"`
	Confidence float64       `json:"confidence,omitempty"`
	Edits      []plan.Edit   `json:"edits,omitempty"`
	Steps      []stepReply   `json:"steps,omitempty"`
	Response   string        `json:"response,omitempty"`
}
