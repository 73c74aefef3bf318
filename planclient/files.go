package planclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// PlanState says whether plan id is open or when its last run closed,
// for a collection of the plans' files (workspace.CollectRequest.PlanState):
// a plan Temporal no longer knows closed at the zero time.
func PlanState(c client.Client) func(ctx context.Context, id string) (bool, time.Time, error) {
	return func(ctx context.Context, id string) (bool, time.Time, error) {
		desc, err := c.DescribeWorkflow(ctx, id, "")
		var notFound *serviceerror.NotFound
		if errors.As(err, &notFound) {
			return false, time.Time{}, nil
		}
		if err != nil {
			return false, time.Time{}, fmt.Errorf("describe plan %s: %w", id, err)
		}
		info := desc.RawResponse.GetWorkflowExecutionInfo()
		if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return true, time.Time{}, nil
		}
		return false, info.GetCloseTime().AsTime(), nil
	}
}
