package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// planEndStartToClose bounds the reads of a rollback: one describe and
// one result fetch, or one walk of the workspace.
const planEndStartToClose = time.Minute

// PlanRollback restores the workspace of a plan that has ended, as it was
// before the plan executed (signals.RollbackWorkflowType). A closed plan
// takes no update, so its rollback is this small workflow beside it,
// started as signals.RollbackWorkflowID(planID, n). It reads the plan's
// end (PlanEnd: status, close time, snapshot and workspace from its
// Result), lists what changed in the workspace since the plan closed, and
// refuses with a signals.ErrorTypeWorkspaceChanged error naming those
// files unless req.Force; then it runs RestoreWorkspace, as the open
// plan's rollback update does, and returns what came back. A plan still
// open, unknown or without a snapshot fails it with the activity's
// non-retryable error.
func PlanRollback(ctx workflow.Context, req signals.RollbackPlanRequest) (signals.RollbackPlanResult, error) {
	if err := req.Validate(); err != nil {
		return signals.RollbackPlanResult{}, invalidRequest(err)
	}
	end, err := call(readCtx(ctx, "read the end of "+req.PlanID), a.PlanEnd, activities.PlanEndInput{PlanID: req.PlanID,
		StepID: req.StepID})
	if err != nil {
		return signals.RollbackPlanResult{}, rollbackFailed(req.PlanID, err)
	}
	res := signals.RollbackPlanResult{PlanID: req.PlanID, PlanStatus: end.Status, SnapshotID: end.SnapshotID,
		Workspace: end.Workspace, Forced: req.Force}
	in := activities.ChangedSinceInput{Workspace: end.Workspace, Since: end.ClosedAt, Manifest: end.Manifest}
	changed, err := call(readCtx(ctx, "list the workspace changes since the plan ended"), a.WorkspaceChangedSince, in)
	if err != nil {
		return res, rollbackFailed(req.PlanID, err)
	}
	res.ChangedSince, res.ChangedMore = changed.Paths, changed.More
	if len(changed.Paths) > 0 && !req.Force {
		return res, workspaceChanged(res, end.ClosedAt)
	}
	// The restore checks again where it runs: the listing above may have
	// run on a worker that does not hold the folder.
	out, err := restoreWorkspace(ctx, activities.RestoreInput{SnapshotID: end.SnapshotID, Workspace: end.Workspace,
		Guard: end.Manifest, Force: req.Force}, "rollback workspace")
	if err != nil {
		return res, rollbackFailed(req.PlanID, err)
	}
	res.Restored, res.Removed = out.Restored, out.Removed
	return res, nil
}

// readCtx is ctx with the options of a rollback's short reads.
func readCtx(ctx workflow.Context, summary string) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: planEndStartToClose,
		RetryPolicy:         retryPolicy,
		Summary:             summary,
	})
}

// rollbackFailed fails a rollback for an activity's err: a refusal keeps
// its type (activities.ErrorTypePlanOpen, ErrorTypeNoSnapshot, ErrorTypeSnapshot, …) so
// that callers can tell why; other errors pass as they are.
func rollbackFailed(planID string, err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("rollback of %s: %s", planID, app.Message()), app.Type(), err)
	}
	return fmt.Errorf("rollback of %s: %w", planID, err)
}

// workspaceChanged is the refusal of a rollback over changes made after
// the plan ended: it names them, and carries res as its detail.
func workspaceChanged(res signals.RollbackPlanResult, closed time.Time) error {
	list := strings.Join(res.ChangedSince, ", ")
	if res.ChangedMore > 0 {
		list += fmt.Sprintf(" and %d more", res.ChangedMore)
	}
	msg := fmt.Sprintf("the workspace changed since plan %s ended (%s): %s; force the rollback to overwrite them",
		res.PlanID, closed.UTC().Format(time.RFC3339), list)
	return temporal.NewNonRetryableApplicationError(msg, signals.ErrorTypeWorkspaceChanged, nil, res)
}
