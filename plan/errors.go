package plan

import "fmt"

// EditCode classifies why an edit was refused.
type EditCode string

// Edit error codes.
const (
	// EditStepNotFound: the target or anchor step does not exist.
	EditStepNotFound EditCode = "STEP_NOT_FOUND"
	// EditStepLocked: the step is running, retrying or already done, so it
	// may no longer be changed or removed.
	EditStepLocked EditCode = "STEP_LOCKED"
	// EditDuplicateStepID: a new step reuses an id already in the plan.
	EditDuplicateStepID EditCode = "DUPLICATE_STEP_ID"
	// EditInvalidEdit: the edit itself is malformed (unknown op, missing
	// step, empty patch, nothing to do).
	EditInvalidEdit EditCode = "INVALID_EDIT"
	// EditInvalidPlan: the edit would introduce validation errors (unknown
	// dependency, cycle, missing config...).
	EditInvalidPlan EditCode = "INVALID_PLAN"
)

// EditError says why an edit was refused. The plan is left unchanged
// whenever one is returned.
type EditError struct {
	Code    EditCode `json:"code"`
	Message string   `json:"message"`
	StepID  string   `json:"stepId,omitempty"`
	// Issues are the new validation errors behind an EditInvalidPlan.
	Issues []Issue `json:"issues,omitempty"`
}

// Error renders the code, the step and the message.
func (e *EditError) Error() string {
	if e.StepID != "" {
		return fmt.Sprintf("%s: step %q: %s", e.Code, e.StepID, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func editErr(code EditCode, stepID, format string, args ...any) *EditError {
	return &EditError{Code: code, StepID: stepID, Message: fmt.Sprintf(format, args...)}
}
