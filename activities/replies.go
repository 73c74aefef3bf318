package activities

import (
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// The JSON documents the model is asked to return, one per structured
// phase. They are the contract between the prompts, the adapter's parser
// and any model that plays the LLM, the offline one included.
//
// Every request's first system message starts with the line
// "planmode phase: <Phase>" so that a log, a proxy or the offline model can
// tell the phases apart without parsing prose.

// LLM phases as named in prompts, per-phase settings and usage counts.
const (
	PhaseClarify   = llm.PhaseClarify
	PhasePlan      = llm.PhasePlan
	PhaseExecute   = llm.PhaseExecute
	PhaseAgent     = llm.PhaseAgent
	PhaseReflect   = llm.PhaseReflect
	PhaseSummarize = llm.PhaseSummarize
)

// PhaseLine is the first line of every request's system message.
const PhaseLine = "planmode phase: "

// ClarifyReply is the model's answer to a clarify request.
type ClarifyReply struct {
	// Goal is the clarified goal.
	Goal string `json:"goal"`
	// NeedsPlan is false when DirectAnswer answers the goal outright.
	NeedsPlan    bool     `json:"needsPlan"`
	DirectAnswer string   `json:"directAnswer,omitempty"`
	Questions    []string `json:"questions,omitempty"`
}

// OptionsReply is the model's answer to a plan request.
type OptionsReply struct {
	Options []OptionReply `json:"options"`
}

// OptionReply is one option as the model writes it.
type OptionReply struct {
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Pros        []string    `json:"pros"`
	Cons        []string    `json:"cons"`
	Steps       []StepReply `json:"steps"`
	Risks       []plan.Risk `json:"risks"`
	Estimates   struct {
		// DurationMinutes is the expected wall time.
		DurationMinutes float64         `json:"durationMinutes"`
		Complexity      plan.Complexity `json:"complexity"`
		Confidence      float64         `json:"confidence"`
	} `json:"estimates"`
}

// StepReply is one step as the model writes it.
type StepReply struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Kind        plan.StepKind   `json:"kind"`
	Action      plan.Action     `json:"action"`
	Config      plan.StepConfig `json:"config"`
	DependsOn   []string        `json:"dependsOn,omitempty"`
	MaxRetries  int             `json:"maxRetries,omitempty"`
	Skippable   bool            `json:"skippable,omitempty"`
	// EstimatedSeconds is the expected wall time.
	EstimatedSeconds float64 `json:"estimatedSeconds,omitempty"`
}

// ReflectReply is the model's answer to a reflect request.
type ReflectReply struct {
	Decision   plan.Decision `json:"decision"`
	StepIDs    []string      `json:"stepIds,omitempty"`
	Reason     string        `json:"reason"`
	Confidence float64       `json:"confidence,omitempty"`
	Edits      []plan.Edit   `json:"edits,omitempty"`
	Steps      []StepReply   `json:"steps,omitempty"`
	Response   string        `json:"response,omitempty"`
}
