package signals

import (
	"errors"
	"fmt"
	"slices"

	"go.temporal.io/sdk/temporal"
)

// How a plan ends, as Temporal records it. A plan that completes, or that
// clarification answers outright, is Completed with its [Result]. A plan
// that fails is Failed with a non-retryable application error of type
// [ErrorTypePlanFailed] whose first detail is the whole Result. A plan
// cancelled (by Temporal cancellation, or by its own selection timeout
// with the cancel outcome) is Canceled with the Result as the
// cancellation's first detail. [ResultFromError] gets the Result back
// from either error; planclient.Client.Result does it for you.
const (
	// ErrorTypePlanFailed is the application error type of a failed
	// plan. Its message is the Result's Error; its first detail is the
	// Result.
	ErrorTypePlanFailed = "PlanFailed"
	// ErrorTypeInvalidRequest is the application error type of a plan
	// that refused its StartRequest before doing anything; it carries no
	// Result.
	ErrorTypeInvalidRequest = "InvalidRequest"
)

// Rejection types: the Type of the non-retryable application error with
// which a run refuses an update (its validator answers before anything is
// recorded) or a signal (then listed in the pending query's rejected
// inputs). Every message starts with "rejected: ". Retrying the same input
// cannot help; [IsRejected] and [RejectionType] read them on the client.
const (
	// ErrorTypeUnknownOption: no option has the id or rank asked for.
	ErrorTypeUnknownOption = "UnknownOption"
	// ErrorTypeWrongPhase: the input does not apply to the run as it is now
	// (not awaiting it, already done, finishing, nothing to act on).
	ErrorTypeWrongPhase = "WrongPhase"
	// ErrorTypeInvalidEdit: the plan edits do not apply or would leave an
	// invalid plan.
	ErrorTypeInvalidEdit = "InvalidEdit"
	// ErrorTypeInvalidInput: the payload is not JSON, not the request's
	// shape, or misses a required field.
	ErrorTypeInvalidInput = "InvalidInput"
	// ErrorTypeUnknownRequest: a confirmation names a request the run does
	// not have open.
	ErrorTypeUnknownRequest = "UnknownRequest"
	// ErrorTypeTooLarge: a text or the edits are beyond the bounds in
	// limits.go.
	ErrorTypeTooLarge = "TooLarge"
	// ErrorTypeBusy: the run is doing what the input would start or change
	// (a refine, a rollback); try again once it is done.
	ErrorTypeBusy = "Busy"
	// ErrorTypeStaleApproval: an approval whose argument digest or plan
	// version differs from the open request's, or a request asked under a
	// plan version that edits or a replan have since replaced. Look at the
	// pending query again and approve what it shows.
	ErrorTypeStaleApproval = "StaleApproval"
)

// RejectionTypes lists every rejection type.
var RejectionTypes = []string{
	ErrorTypeUnknownOption, ErrorTypeWrongPhase, ErrorTypeInvalidEdit, ErrorTypeInvalidInput,
	ErrorTypeUnknownRequest, ErrorTypeTooLarge, ErrorTypeBusy, ErrorTypeStaleApproval,
}

// Reject returns the refusal of an input: a non-retryable application
// error of type typ (one of [RejectionTypes]) whose message is "rejected: "
// and the formatted reason. The workflow's validators return it.
func Reject(typ, format string, args ...any) error {
	msg := fmt.Sprintf("%s: %s", ErrRejected, fmt.Sprintf(format, args...))
	return temporal.NewNonRetryableApplicationError(msg, typ, nil)
}

// RejectionType returns the rejection type of err (see [RejectionTypes]),
// or "" when err is not a rejection of that kind.
func RejectionType(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && slices.Contains(RejectionTypes, app.Type()) {
		return app.Type()
	}
	return ""
}

// IsRejected reports whether err is a run's refusal of an input: a typed
// rejection, or an error that wraps [ErrRejected].
func IsRejected(err error) bool {
	return errors.Is(err, ErrRejected) || RejectionType(err) != ""
}

// RejectionReason is a refusal as a person reads it: the application
// error's message without the SDK's type and retry decorations, or err's
// text.
func RejectionReason(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return err.Error()
}

// ResultFromError returns the Result a failed or cancelled plan ended with:
// the first detail of a [ErrorTypePlanFailed] application error or of a
// cancellation. It reports false when err carries no Result (a plan
// terminated or timed out, an invalid request, a cancellation before any
// worker ran the plan).
func ResultFromError(err error) (Result, bool) {
	var res Result
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == ErrorTypePlanFailed && app.HasDetails() {
		return res, app.Details(&res) == nil && res.Status != ""
	}
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) && canceled.HasDetails() {
		return res, canceled.Details(&res) == nil && res.Status != ""
	}
	return res, false
}
