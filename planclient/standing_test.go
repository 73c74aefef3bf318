package planclient

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// described is a describe answer for a run with the given status, history
// length, pending workflow task and search attributes.
func described(st enumspb.WorkflowExecutionStatus, events int64, pendingTask bool, attrs map[string]any) *workflowservice.DescribeWorkflowExecutionResponse {
	fields := map[string]*commonpb.Payload{}
	for k, v := range attrs {
		p, _ := converter.GetDefaultDataConverter().ToPayload(v)
		fields[k] = p
	}
	resp := &workflowservice.DescribeWorkflowExecutionResponse{
		ExecutionConfig: &workflowpb.WorkflowExecutionConfig{TaskQueue: &taskqueuepb.TaskQueue{Name: "q"}},
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
			Status: st, HistoryLength: events, TaskQueue: "q",
			StartTime:        timestamppb.New(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)),
			SearchAttributes: &commonpb.SearchAttributes{IndexedFields: fields},
		},
	}
	if pendingTask {
		resp.PendingWorkflowTask = &workflowpb.PendingWorkflowTaskInfo{State: enumspb.PENDING_WORKFLOW_TASK_STATE_SCHEDULED}
	}
	return resp
}

func TestStandingOfADescribeAnswer(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 5, 0, 0, time.UTC)
	running := enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING

	s := standingOf(described(running, 2, true, nil), now)
	assert.True(t, s.Queued, "started, first task scheduled")
	assert.Equal(t, plan.Duration(5*time.Minute), s.QueuedFor)
	assert.Equal(t, "q", s.TaskQueue)
	assert.Equal(t, "Running", s.Status)

	assert.True(t, standingOf(described(running, 3, true, nil), now).Queued, "first task started, not completed")
	assert.False(t, standingOf(described(running, 12, true, nil), now).Queued, "past its first task")
	assert.False(t, standingOf(described(running, 2, false, nil), now).Queued, "no task pending")
	assert.False(t, standingOf(described(enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED, 2, false, nil), now).Queued)

	s = standingOf(described(running, 40, false, map[string]any{
		signals.PhaseAttr.GetName(): "executing", signals.AwaitingAttr.GetName(): "confirmation", signals.ProgressAttr.GetName(): 60,
		signals.GoalAttr.GetName(): "Add JWT authentication",
	}), now)
	assert.Equal(t, plan.PhaseExecuting, s.Phase)
	assert.Equal(t, signals.AwaitingConfirmation, s.Awaiting)
	assert.Equal(t, 60, s.Percent)
	assert.Equal(t, "Add JWT authentication", s.Goal)
	assert.Equal(t, SourceSearchAttributes, s.Source)
	s.Note = "slow"
	assert.Equal(t, "Running, phase executing, 60%, waits for confirmation (from search attributes: slow)", s.Summary())
}
