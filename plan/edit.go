package plan

import "time"

// EditOp names a plan edit: a change to a plan's steps while it runs,
// sent by a person (edit-plan) or made by reflection.
type EditOp string

// Edit operations.
const (
	OpInsertAfter  EditOp = "insertAfter"
	OpInsertBefore EditOp = "insertBefore"
	OpAppend       EditOp = "append"
	OpRemove       EditOp = "remove"
	OpRemoveAfter  EditOp = "removeAfter"
	OpUpdate       EditOp = "update"
)

// Edit is one change to a plan as it travels on the wire. StepID is the
// anchor (insertAfter, insertBefore, removeAfter) or the target (remove,
// update); Step is the new step (insert, append) or, for update, the fields
// to change (zero fields are left as they are).
type Edit struct {
	Op     EditOp `json:"op"`
	StepID string `json:"stepId,omitempty"`
	Step   *Step  `json:"step,omitempty"`
}

// Change says who asks for an edit, when and why; every applied edit is
// recorded in the plan's UpdateHistory with it.
type Change struct {
	Actor  Actor     `json:"actor"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
	// Within are the run's limits the edited plan must keep (its maxSteps,
	// its tools); the zero value keeps the hard bounds of limits.go alone.
	// It is not recorded.
	Within Limits `json:"-"`
}

// Check reports what is wrong with e on its own, before it meets a plan:
// an unknown op, a missing stepId or step, or fields the op contradicts (a
// step given to remove or removeAfter, a stepId given to append, which
// places its step at the end). Plan.Apply itself ignores what an op does
// not use, so that a model's slightly loose edit still applies; Check is
// for inputs from people and other services, which are told instead.
func (e Edit) Check() error {
	switch e.Op {
	case OpInsertAfter, OpInsertBefore, OpUpdate, OpAppend, OpRemove, OpRemoveAfter:
	default:
		return editErr(EditInvalidEdit, "", "unknown edit op %q: want insertAfter, insertBefore, append, remove, removeAfter or update", TruncateBytes(string(e.Op), MaxIDBytes))
	}
	if len(e.StepID) > MaxIDBytes {
		return editErr(EditInvalidEdit, "", "%s: stepId is %d bytes: at most %d", e.Op, len(e.StepID), MaxIDBytes)
	}
	needsID := e.Op != OpAppend
	needsStep := e.Op != OpRemove && e.Op != OpRemoveAfter
	switch {
	case needsID && e.StepID == "":
		return editErr(EditInvalidEdit, "", "%s needs a stepId", e.Op)
	case !needsID && e.StepID != "":
		return editErr(EditInvalidEdit, e.StepID, "%s takes no stepId: it adds its step at the end (insertAfter places it after a step)", e.Op)
	case needsStep && e.Step == nil:
		return editErr(EditInvalidEdit, e.StepID, "%s needs a step", e.Op)
	case !needsStep && e.Step != nil:
		return editErr(EditInvalidEdit, e.StepID, "%s takes no step", e.Op)
	}
	return nil
}
