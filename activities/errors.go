package activities

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/planread"
	"github.com/planmode/planmode/workspace"
)

// Types of the ApplicationErrors the activities return besides the LLM's
// (llm.ErrorType). All are non-retryable: a retry cannot fix them.
const (
	// ErrorTypeUnknownTemplate is a plan template name that does not exist.
	ErrorTypeUnknownTemplate = "UnknownTemplate"
	// ErrorTypeWorkspace is a workspace that is missing, not a directory or
	// outside the worker's workspace root.
	ErrorTypeWorkspace = "WorkspaceRejected"
	// ErrorTypeSnapshot is a snapshot that cannot be taken (too large) or
	// restored (unknown id, another workspace's snapshot).
	ErrorTypeSnapshot = "SnapshotError"
)

// fail returns a non-retryable ApplicationError of type typ.
func fail(typ string, cause error, msg string) error {
	return temporal.NewApplicationErrorWithOptions(msg, typ, temporal.ApplicationErrorOptions{
		NonRetryable: true,
		Cause:        cause,
	})
}

// refusal turns a refusal of the workspace package into the non-retryable
// ApplicationError of its kind (ErrorTypeWorkspace, ErrorTypeSnapshot).
// Other errors are faults of the worker, returned as they are for
// Temporal to retry: a stored file that fails its hash and a store that
// is down among them, whatever refused on the way.
func refusal(err error) error {
	var r *workspace.Refusal
	if errors.Is(err, workspace.ErrCorrupt) || errors.Is(err, blobstore.ErrUnavailable) || !errors.As(err, &r) {
		return err
	}
	typ := ErrorTypeWorkspace
	if errors.Is(r.Kind, workspace.ErrSnapshot) {
		typ = ErrorTypeSnapshot
	}
	return fail(typ, r.Err, r.Msg)
}

// readError turns a refused read of another plan into the non-retryable
// ApplicationError of its kind (ErrorTypePlanNotFound, ErrorTypePlanOpen,
// ErrorTypeNoSnapshot); other errors are returned as they are.
func readError(err error) error {
	var r *planread.Refusal
	if !errors.As(err, &r) {
		return err
	}
	typ := ErrorTypeNoSnapshot
	switch {
	case errors.Is(r.Kind, planread.ErrNotFound):
		typ = ErrorTypePlanNotFound
	case errors.Is(r.Kind, planread.ErrOpen):
		typ = ErrorTypePlanOpen
	}
	return fail(typ, r.Err, r.Msg)
}
