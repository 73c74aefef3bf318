package planclient

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/signals"
)

// closedProgress is the progress of plan id when its latest run has
// closed with a Result that says it (signals.Result.Progress): read from
// the run's close event, without the workflow task a query on a closed
// run takes (a worker replays its whole history, behind the tasks of
// every plan that runs). ok is false for a run that is open, or closed
// without such a Result (terminated, timed out, or ended by a build that
// did not write it): the query answers those.
func (c *Client) closedProgress(ctx context.Context, id string, status enumspb.WorkflowExecutionStatus) (signals.Progress, bool) {
	switch status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED,
		enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
	default:
		return signals.Progress{}, false
	}
	res, err := c.Result(ctx, id)
	if err != nil || res.StartedAt == nil {
		return signals.Progress{}, false
	}
	return res.Progress(), true
}
