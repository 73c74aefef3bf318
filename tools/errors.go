package tools

import (
	"errors"
	"fmt"
)

// ToolError is a user-level failure of a tool that ran: the message goes back
// to the agent (ToolOutput{Success: false, Error: ...}) instead of failing
// the activity, so the agent can correct the call.
type ToolError struct {
	Err error
}

// Error returns the failure's message.
func (e *ToolError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *ToolError) Unwrap() error { return e.Err }

// Failf returns a [*ToolError] with a formatted message; %w wraps as in
// fmt.Errorf.
func Failf(format string, args ...any) error {
	return &ToolError{Err: fmt.Errorf(format, args...)}
}

// IsToolError reports whether err is, or wraps, a [*ToolError].
func IsToolError(err error) bool {
	var te *ToolError
	return errors.As(err, &te)
}

// PathError says why a path was rejected by the [Sandbox]. It is always
// returned wrapped in a [*ToolError].
type PathError struct {
	Path   string
	Reason string
}

// Error returns a message such as `path "../etc/passwd" leaves the workspace`.
func (e *PathError) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

func rejectPath(path, format string, args ...any) error {
	return &ToolError{Err: &PathError{Path: path, Reason: fmt.Sprintf(format, args...)}}
}
