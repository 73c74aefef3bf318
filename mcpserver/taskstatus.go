package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// A task's status and ttl, from what Temporal says of its plan.

// TaskStatus is a task's status as MCP names it.
type TaskStatus string

// Task statuses.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// terminal reports whether a task of status s has ended.
func (s TaskStatus) terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// executionStatus is the task status and message of a plan of Temporal
// status st in phase, waiting for awaiting, percent done.
func executionStatus(st enumspb.WorkflowExecutionStatus, phase plan.Phase, awaiting signals.Awaiting, percent int) (TaskStatus, string) {
	switch st {
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return TaskCompleted, "the plan ended: " + orUnknown(string(phase))
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return TaskFailed, "the plan failed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return TaskCancelled, "the plan was cancelled"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return TaskFailed, "the plan was terminated"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return TaskFailed, "the plan timed out"
	}
	return openStatus(phase, awaiting, percent, false)
}

// openStatus is the task status and message of an open plan.
func openStatus(phase plan.Phase, awaiting signals.Awaiting, percent int, paused bool) (TaskStatus, string) {
	msg := fmt.Sprintf("phase %s, %d%%", orUnknown(string(phase)), percent)
	if paused {
		msg += ", paused"
	}
	status := TaskWorking
	switch awaiting {
	case signals.AwaitingSelection, signals.AwaitingClarification, signals.AwaitingConfirmation, signals.AwaitingApproval:
		status = TaskInputRequired
		msg += ", waits for " + string(awaiting) + ": " + answeredWith[awaiting]
	case signals.AwaitingWorkspace, signals.AwaitingResume:
		msg += ", waits for " + string(awaiting)
	}
	return status, msg
}

// answeredWith names the tools that answer what a plan waits for.
var answeredWith = map[signals.Awaiting]string{
	signals.AwaitingSelection:     ToolOptions + ", then " + ToolSelect + " or " + ToolRefine,
	signals.AwaitingClarification: ToolStatus + " (pending.clarification), then " + ToolAnswer,
	signals.AwaitingConfirmation:  ToolStatus + " (pending.skipConfirmations), then " + ToolConfirmSkip,
	signals.AwaitingApproval:      ToolApprovals + ", then " + ToolApprove + " or " + ToolDeny,
}

// standingStatus is the task status and message of an open plan as it
// stands: its progress (from its log or its query), else its search
// attributes.
func standingStatus(st planclient.Standing) (TaskStatus, string) {
	switch {
	case st.Queued:
		return TaskWorking, st.Summary()
	case st.Progress != nil:
		p := st.Progress
		return openStatus(p.Phase, p.Awaiting, p.Percent, p.Paused)
	}
	status, msg := openStatus(st.Phase, st.Awaiting, st.Percent, false)
	if st.Note != "" {
		msg += " (from search attributes: " + st.Note + ")"
	}
	return status, msg
}

// retention is the namespace's retention, read once in a while: it
// changes seldom, and is no plan's state.
type retention struct {
	namespace string

	mu     sync.Mutex
	value  time.Duration
	readAt time.Time
}

// retentionMaxAge is how long a read retention is used before it is read
// again.
const retentionMaxAge = 5 * time.Minute

// ttl is a task's ttl: the namespace's retention, or DefaultTaskTTL when
// it cannot be read.
func (s *server) ttl(ctx context.Context) time.Duration {
	r := s.retention
	if r == nil || r.namespace == "" {
		return DefaultTaskTTL
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.readAt.IsZero() && time.Since(r.readAt) < retentionMaxAge {
		return r.value
	}
	r.value, r.readAt = DefaultTaskTTL, time.Now()
	desc, err := s.plans.Temporal().WorkflowService().DescribeNamespace(ctx,
		&workflowservice.DescribeNamespaceRequest{Namespace: r.namespace})
	if err != nil {
		return r.value
	}
	if d := desc.GetConfig().GetWorkflowExecutionRetentionTtl(); d != nil && d.AsDuration() > 0 {
		r.value = d.AsDuration()
	}
	return r.value
}

// orUnknown is s, or "unknown" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
