package signals

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
)

// The Validate methods below check a payload on its own, before it meets
// the run: contradictory fields and sizes beyond limits.go. What depends on
// the run's state (is a selection awaited, does the option exist) is the
// workflow's validators' to judge. [Handler.Decode] calls them, so signals
// and updates are refused alike; clients may call them to fail early.

// Validate refuses a selection that names both an option and a rank,
// which may disagree, and feedback longer than MaxTextBytes.
func (r SelectOptionRequest) Validate() error {
	if r.OptionID != "" && r.Rank != 0 {
		return fmt.Errorf("optionId %q and rank %d are both given: give one", short(r.OptionID), r.Rank)
	}
	return errors.Join(textTooLong("feedback", r.Feedback), callerTooLong(r.By))
}

// Validate refuses feedback longer than MaxTextBytes.
func (r RefinePlanRequest) Validate() error {
	return errors.Join(textTooLong("feedback", r.Feedback), callerTooLong(r.By))
}

// Validate refuses more than MaxAnswers answers, and a question or an
// answer longer than MaxTextBytes.
func (r AnswerClarificationRequest) Validate() error {
	if err := callerTooLong(r.By); err != nil {
		return err
	}
	if len(r.Answers) > MaxAnswers {
		return tooLarge("answers has %d entries: at most %d", len(r.Answers), MaxAnswers)
	}
	for _, q := range workflow.DeterministicKeys(r.Answers) {
		if err := textTooLong("question", q); err != nil {
			return err
		}
		if err := textTooLong(fmt.Sprintf("answer to %q", short(q)), r.Answers[q]); err != nil {
			return err
		}
	}
	return nil
}

// Validate refuses a note longer than MaxTextBytes.
func (r ConfirmSkipRequest) Validate() error {
	return errors.Join(textTooLong("note", r.Note), callerTooLong(r.By))
}

// Validate refuses more than MaxEdits edits or MaxEditBytes of them as
// JSON, a malformed or contradictory edit (see plan.Edit.Check) and a
// reason longer than MaxTextBytes. Whether the edits apply to the plan is
// the run's to judge.
func (r EditPlanRequest) Validate() error {
	if err := errors.Join(textTooLong("reason", r.Reason), callerTooLong(r.By)); err != nil {
		return err
	}
	if len(r.Edits) > MaxEdits {
		return tooLarge("edits has %d entries: at most %d", len(r.Edits), MaxEdits)
	}
	// Encoding sorts map keys: the size is the same on replay.
	b, err := json.Marshal(r.Edits) //workflowcheck:ignore
	if err != nil {
		return fmt.Errorf("edits: %v", err)
	}
	if len(b) > MaxEditBytes {
		return tooLarge("edits are %d bytes of JSON: at most %d bytes", len(b), MaxEditBytes)
	}
	var errs []string
	for i, e := range r.Edits {
		if err := e.Check(); err != nil {
			errs = append(errs, fmt.Sprintf("edit %d: %v", i+1, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Validate refuses a reason longer than MaxTextBytes.
func (r ControlRequest) Validate() error {
	return errors.Join(textTooLong("reason", r.Reason), callerTooLong(r.By))
}

// Validate refuses a by longer than MaxCallerBytes.
func (r RollbackRequest) Validate() error {
	if len(r.StepID) > plan.MaxIDBytes {
		return fmt.Errorf("stepId is %d bytes: at most %d", len(r.StepID), plan.MaxIDBytes)
	}
	return callerTooLong(r.By)
}

// callerTooLong refuses a by field longer than MaxCallerBytes.
func callerTooLong(by string) error {
	if len(by) > MaxCallerBytes {
		return fmt.Errorf("by is %d bytes: at most %d bytes", len(by), MaxCallerBytes)
	}
	return nil
}

// textTooLong refuses a free text longer than MaxTextBytes, naming it.
func textTooLong(field, text string) error {
	if len(text) > MaxTextBytes {
		return tooLarge("%s is %d bytes: at most %d bytes", field, len(text), MaxTextBytes)
	}
	return nil
}

// Interface checks: every payload with fields checks itself.
var (
	_ interface{ Validate() error } = SelectOptionRequest{}
	_ interface{ Validate() error } = RefinePlanRequest{}
	_ interface{ Validate() error } = AnswerClarificationRequest{}
	_ interface{ Validate() error } = ConfirmSkipRequest{}
	_ interface{ Validate() error } = EditPlanRequest{}
	_ interface{ Validate() error } = ControlRequest{}
	_ interface{ Validate() error } = RollbackRequest{}
)

// tooLargeError is a payload over one of the limits, so that a refusal can
// be typed TooLarge rather than InvalidInput.
type tooLargeError struct{ error }

// tooLarge returns a tooLargeError with the formatted message.
func tooLarge(format string, args ...any) error { return tooLargeError{fmt.Errorf(format, args...)} }

// rejectionOf types a payload's refusal: TooLarge for a limit, InvalidInput
// for anything else.
func rejectionOf(err error) error {
	var tl tooLargeError
	if errors.As(err, &tl) {
		return Reject(ErrorTypeTooLarge, "%v", err)
	}
	return Reject(ErrorTypeInvalidInput, "%v", err)
}
