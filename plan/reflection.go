package plan

// Decision is what a reflection after a step decided.
type Decision string

// Decisions.
const (
	// DecisionContinue goes on with the next step.
	DecisionContinue Decision = "continue"
	// DecisionSkip skips later steps (StepIDs) with a confidence.
	DecisionSkip Decision = "skip"
	// DecisionInsert, DecisionAppend, DecisionRemove and DecisionUpdate
	// change the plan through Edits.
	DecisionInsert Decision = "insert"
	DecisionAppend Decision = "append"
	DecisionRemove Decision = "remove"
	DecisionUpdate Decision = "update"
	// DecisionReplan replaces every step not yet done with Steps.
	DecisionReplan Decision = "replan"
	// DecisionComplete declares the goal achieved: the rest is skipped.
	DecisionComplete Decision = "complete"
)

// Reflection is the outcome of reflecting after a step.
type Reflection struct {
	Decision Decision `json:"decision"`
	// StepIDs are the steps a skip names.
	StepIDs []string `json:"stepIds,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	// Confidence in a skip, between 0 and 1.
	Confidence float64 `json:"confidence,omitempty"`
	// Edits carry insert, append, remove and update decisions.
	Edits []Edit `json:"edits,omitempty"`
	// Steps are the new remaining steps of a replan.
	Steps []Step `json:"steps,omitempty"`
	// Response is the reflector's own words, e.g. why the goal is met.
	Response string `json:"response,omitempty"`
	Usage    Usage  `json:"usage"`
}
