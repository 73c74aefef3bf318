package planclient

import (
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// planError is a failed call on one plan. Its message is "plan <id>: ",
// what was asked and the cause as a person reads it; errors.Is and
// errors.As see the cause and, for a run's typed refusal,
// [signals.ErrRejected].
type planError struct {
	msg  string
	errs []error
}

func (e *planError) Error() string   { return e.msg }
func (e *planError) Unwrap() []error { return e.errs }

// wrap is the one wrapping of the errors of a call on plan id: nil stays
// nil, an error wrap made already stays as it is. Otherwise the message
// names the plan and says err without the SDK's decorations of the
// application error in it (" (type: WrongPhase, retryable: false)"), so
// a refusal reads as the run wrote it: "plan p: update pause: rejected:
// already paused". A typed refusal ([signals.RejectionTypes]) is marked
// so that errors.Is finds [signals.ErrRejected] in it.
func wrap(id string, err error) error {
	var done *planError
	if err == nil || errors.As(err, &done) {
		return err
	}
	e := &planError{msg: "plan " + id + ": " + readable(err), errs: []error{err}}
	if !errors.Is(err, signals.ErrRejected) && signals.RejectionType(err) != "" {
		e.errs = append(e.errs, signals.ErrRejected)
	}
	return e
}

// readable is err's text with the application error in it, if any, cut
// down to its message.
func readable(err error) string {
	msg := err.Error()
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		msg = strings.Replace(msg, app.Error(), app.Message(), 1)
	}
	return msg
}
