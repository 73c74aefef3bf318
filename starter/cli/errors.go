package cli

import (
	"errors"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// Exit codes of the CLI.
const (
	exitOK          = 0
	exitOther       = 1
	exitUnreachable = 2
	exitNotFound    = 3
	exitRejected    = 4
	exitNotDone     = 5
)

// endedError says a plan ended without doing its work (failed or
// cancelled), so that scripts can tell from `planmode result`'s exit code.
type endedError struct{ status signals.Status }

func (e *endedError) Error() string { return "the plan ended " + string(e.status) }

// unreachableError says Temporal could not be reached.
type unreachableError struct {
	address string
	err     error
}

func (e *unreachableError) Error() string {
	return "cannot reach Temporal at " + e.address + ": " + e.err.Error() +
		"; start one with `make dev-server` or set temporal.address (--address, PLANMODE_TEMPORAL_ADDRESS)"
}

func (e *unreachableError) Unwrap() error { return e.err }

// rejectedError is input the CLI refuses before sending it.
type rejectedError struct{ msg string }

func (e *rejectedError) Error() string { return e.msg }

// rejectf returns a rejectedError.
func rejectf(msg string) error { return &rejectedError{msg: msg} }

// exitCode maps err to the CLI's exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case isUnreachable(err):
		return exitUnreachable
	case isNotFound(err):
		return exitNotFound
	case isRejected(err):
		return exitRejected
	}
	var ended *endedError
	if errors.As(err, &ended) {
		return exitNotDone
	}
	return exitOther
}

func isUnreachable(err error) bool {
	var u *unreachableError
	if errors.As(err, &u) {
		return true
	}
	var unavailable *serviceerror.Unavailable
	return errors.As(err, &unavailable)
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return true
	}
	var nsnf *serviceerror.NamespaceNotFound
	return errors.As(err, &nsnf)
}

// isRejected finds the workflow's refusal of an update (a validator's error,
// which the workflow marks with signals.ErrRejected and which reaches the
// client as an application error), an invalid argument the service
// refused, a plan id already in use, or the CLI's own refusal, flags and
// arguments included.
func isRejected(err error) bool {
	var r *rejectedError
	if errors.As(err, &r) || errors.Is(err, signals.ErrRejected) || isUsageError(err) {
		return true
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Type() == errorTypeRejected || strings.HasPrefix(app.Message(), signals.ErrRejected.Error())
	}
	var invalid *serviceerror.InvalidArgument
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &invalid) || errors.As(err, &started)
}

// errorTypeRejected is the application error type a workflow may give its
// rejections.
const errorTypeRejected = "Rejected"
