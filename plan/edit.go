package plan

import "time"

// EditOp names a plan edit (seed 001's dynamic updates).
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
}
