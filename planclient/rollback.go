package planclient

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// RollbackEnded restores the workspace of plan id after the plan ended,
// by running a PlanRollback workflow under the next free id
// [signals.RollbackWorkflowID](id, n), and waits for its answer. It
// refuses (an error of type [signals.ErrorTypeWorkspaceChanged], with the
// result's ChangedSince filled in) when files changed after the plan
// ended, unless force is set. An open plan is refused too: use
// [Client.Rollback] for it.
func (c *Client) RollbackEnded(ctx context.Context, id, stepID string, force bool) (signals.RollbackPlanResult, error) {
	req := signals.RollbackPlanRequest{PlanID: id, StepID: stepID, Force: force}
	if err := req.Validate(); err != nil {
		return signals.RollbackPlanResult{}, wrap(id, fmt.Errorf("rollback: %w", err))
	}
	for n := 1; n <= signals.MaxRollbacksPerPlan; n++ {
		run, err := c.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:        signals.RollbackWorkflowID(id, n),
			TaskQueue: c.taskQueue,
			// Each rollback keeps its own id, so its history says what it
			// restored; a taken id, open or closed, moves on to the next.
			WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
			WorkflowExecutionErrorWhenAlreadyStarted: true,
			StaticSummary:                            "rollback of " + id,
		}, signals.RollbackWorkflowType, req)
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &started) {
			continue
		}
		if err != nil {
			return signals.RollbackPlanResult{}, wrap(id, fmt.Errorf("rollback: %w", err))
		}
		return rollbackResult(ctx, run, id)
	}
	return signals.RollbackPlanResult{}, wrap(id, fmt.Errorf("rollback: it has had %d rollbacks already", signals.MaxRollbacksPerPlan))
}

// rollbackResult waits for a PlanRollback run; a refusal's details carry
// the result with what changed.
func rollbackResult(ctx context.Context, run client.WorkflowRun, id string) (signals.RollbackPlanResult, error) {
	var out signals.RollbackPlanResult
	err := run.Get(ctx, &out)
	if err == nil {
		return out, nil
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == signals.ErrorTypeWorkspaceChanged && app.HasDetails() {
		_ = app.Details(&out) // the message says it all when the details do not decode
	}
	return out, wrap(id, fmt.Errorf("rollback: %w", err))
}
