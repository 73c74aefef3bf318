package activities

import (
	"context"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// PlanPriorityInput is the task priority a run asks the server to order
// its workflow tasks by from now on (temporal.Priority's fields).
type PlanPriorityInput struct {
	Key            int     `json:"key"`
	FairnessKey    string  `json:"fairnessKey,omitempty"`
	FairnessWeight float32 `json:"fairnessWeight,omitempty"`
}

// PlanPriority sets the task priority of the run that calls it, through
// the worker's Temporal client (UpdateWorkflowExecutionOptions): a local
// activity, so that the change takes no workflow task of its own.
func (n *Notices) PlanPriority(ctx context.Context, in PlanPriorityInput) error {
	info := activity.GetInfo(ctx)
	_, err := activity.GetClient(ctx).WorkflowService().UpdateWorkflowExecutionOptions(ctx, &workflowservice.UpdateWorkflowExecutionOptionsRequest{
		Namespace: info.Namespace,
		WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: info.WorkflowExecution.ID,
			RunId: info.WorkflowExecution.RunID},
		WorkflowExecutionOptions: &workflowpb.WorkflowExecutionOptions{Priority: &commonpb.Priority{
			PriorityKey: int32(in.Key), FairnessKey: in.FairnessKey, FairnessWeight: in.FairnessWeight}},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"priority"}},
		Identity:   "planmode worker",
	})
	return err
}
