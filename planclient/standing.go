package planclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// DefaultQueryTimeout bounds one query of [Client.Standing]: past it the
// answer comes from the plan's search attributes. A plan answers a query
// in a workflow task of its own, which waits behind the tasks of every
// busy plan on its worker.
const DefaultQueryTimeout = 3 * time.Second

// WithQueryTimeout sets how long [Client.Standing] waits for a plan to
// answer its progress query before it answers from search attributes;
// zero or less keeps [DefaultQueryTimeout].
func WithQueryTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.queryTimeout = d
		}
	}
}

// Where a [Standing] answer came from.
const (
	// SourceQuery: the plan answered its progress query.
	SourceQuery = "query"
	// SourceLog: the progress the plan's event log carries (see
	// Client.Progress), read without a workflow task.
	SourceLog = "log"
	// SourceSearchAttributes: the plan did not answer in time, or has not
	// run yet; the answer is what the server knows of it (its status and
	// the search attributes the run last set).
	SourceSearchAttributes = "search-attributes"
)

// Standing is how a plan stands, answered even when the plan cannot answer
// a query: not yet picked up by a worker, its worker busy or gone, or
// closed. Source says where the answer came from; Note says why it is not
// the query's.
type Standing struct {
	WorkflowID string `json:"workflowId"`
	// Status is Temporal's status of the latest run: Running, Completed,
	// Failed, Canceled, Terminated, ContinuedAsNew or TimedOut.
	Status string `json:"status"`
	// Queued is set while the run has not run its first workflow task:
	// it waits for a worker on TaskQueue. QueuedFor is how long so far;
	// Pollers counts the workers polling that queue (0: none is, the plan
	// waits until one starts).
	Queued    bool          `json:"queued,omitempty"`
	QueuedFor plan.Duration `json:"queuedFor,omitempty"`
	TaskQueue string        `json:"taskQueue"`
	Pollers   int           `json:"pollers"`
	Source    string        `json:"source"`
	Note      string        `json:"note,omitempty"`
	// Progress is the plan's progress when Source is SourceQuery or
	// SourceLog.
	Progress *signals.Progress `json:"progress,omitempty"`
	// Phase, Awaiting, Percent and Goal are the search attributes the run
	// set last (empty before its first workflow task).
	Phase    plan.Phase       `json:"phase,omitempty"`
	Awaiting signals.Awaiting `json:"awaiting,omitempty"`
	Percent  int              `json:"percent"`
	Goal     string           `json:"goal,omitempty"`
}

// Summary is one line saying how the plan stands.
func (s Standing) Summary() string {
	switch {
	case s.Queued && s.Pollers == 0:
		return fmt.Sprintf("queued, waiting for a worker: no worker is polling task queue %s (queued for %s)",
			s.TaskQueue, s.QueuedFor)
	case s.Queued:
		return fmt.Sprintf("queued, waiting for a worker on task queue %s (%d polling, queued for %s)",
			s.TaskQueue, s.Pollers, s.QueuedFor)
	case s.Progress != nil:
		return fmt.Sprintf("%s, %d%%", s.Progress.Phase, s.Progress.Percent)
	}
	line := fmt.Sprintf("%s, phase %s, %d%%", s.Status, orUnknown(string(s.Phase)), s.Percent)
	if s.Awaiting != "" && s.Awaiting != signals.AwaitingNone {
		line += ", waits for " + string(s.Awaiting)
	}
	return line + " (from search attributes: " + s.Note + ")"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Standing says how plan id stands. It describes the latest run first: a
// run that has not run its first workflow task is queued (no query is
// sent: it would wait for the worker too); a running one answers from its
// event log, without a workflow task (SourceLog, see Client.Progress);
// otherwise it asks the progress query for at most the query timeout
// ([WithQueryTimeout]) and, when no answer comes in time or the query
// fails, answers from the run's status and search attributes. It fails
// only when the plan cannot be described.
func (c *Client) Standing(ctx context.Context, id string) (Standing, error) {
	desc, err := c.c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return Standing{}, wrap(id, fmt.Errorf("describe: %w", err))
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	s := standingOf(desc.RawResponse, time.Now())
	s.WorkflowID = id
	if s.Queued {
		s.Pollers = c.pollers(ctx, s.TaskQueue)
		s.Note = "the plan has not run yet"
		return s, nil
	}
	if prog, ok := c.loggedProgress(ctx, id, info); ok {
		s.Source, s.Note, s.Progress = SourceLog, "", &prog
		return s, nil
	}
	qctx, cancel := context.WithTimeout(ctx, c.queryTimeout)
	defer cancel()
	prog, err := signals.ProgressQuery.Get(qctx, c.c, id)
	if err == nil {
		s.Source, s.Note, s.Progress = SourceQuery, "", &prog
		return s, nil
	}
	if ctx.Err() != nil {
		return Standing{}, wrap(id, ctx.Err())
	}
	s.Pollers = c.pollers(ctx, s.TaskQueue)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || qctx.Err() != nil:
		s.Note = fmt.Sprintf("the plan did not answer its query within %s", c.queryTimeout)
	case info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && s.Pollers == 0:
		s.Note = "the plan is closed and no worker polls its task queue to answer a query"
	default:
		s.Note = fmt.Sprintf("the query failed: %v", err)
	}
	return s, nil
}

// Status answers Temporal's status of the latest run of plan id
// (running, completed, failed, canceled, terminated, continued as new or
// timed out), which says whether the plan can still take an update.
func (c *Client) Status(ctx context.Context, id string) (enumspb.WorkflowExecutionStatus, error) {
	desc, err := c.c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED, wrap(id, fmt.Errorf("describe: %w", err))
	}
	return desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(), nil
}

// standingOf reads a describe answer at now: status, task queue, whether
// the run is queued, and the search attributes. Source is search
// attributes until a query answers.
func standingOf(desc *workflowservice.DescribeWorkflowExecutionResponse, now time.Time) Standing {
	info := desc.GetWorkflowExecutionInfo()
	s := Standing{
		Status:    statusName(info.GetStatus()),
		TaskQueue: info.GetTaskQueue(),
		Source:    SourceSearchAttributes,
	}
	if q := desc.GetExecutionConfig().GetTaskQueue().GetName(); q != "" {
		s.TaskQueue = q
	}
	if queued(desc) {
		s.Queued = true
		if t := info.GetStartTime(); t != nil {
			s.QueuedFor = plan.Duration(now.Sub(t.AsTime()).Truncate(time.Second))
		}
	}
	fields := info.GetSearchAttributes().GetIndexedFields()
	decode(fields, signals.PhaseAttr.GetName(), &s.Phase)
	decode(fields, signals.AwaitingAttr.GetName(), &s.Awaiting)
	decode(fields, signals.ProgressAttr.GetName(), &s.Percent)
	decode(fields, signals.GoalAttr.GetName(), &s.Goal)
	return s
}

// queued reports whether a running run has not yet completed a workflow
// task: its history holds only its start and a first workflow task
// scheduled (or started, while a worker runs it), and that task is still
// pending. A run's first task sets its phase, so a run past it has more
// events.
func queued(desc *workflowservice.DescribeWorkflowExecutionResponse) bool {
	info := desc.GetWorkflowExecutionInfo()
	return info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING &&
		info.GetHistoryLength() <= 3 && desc.GetPendingWorkflowTask() != nil
}

// decode reads one search attribute into v, leaving v alone when it is
// missing or not of v's type.
func decode(fields map[string]*commonpb.Payload, name string, v any) {
	if p, ok := fields[name]; ok {
		_ = converter.GetDefaultDataConverter().FromPayload(p, v)
	}
}

// statusName is a workflow status as the Web UI and the temporal CLI say
// it: Running, Completed, Failed, ...
func statusName(st enumspb.WorkflowExecutionStatus) string {
	names := map[enumspb.WorkflowExecutionStatus]string{
		enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:          "Running",
		enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:        "Completed",
		enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:           "Failed",
		enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:         "Canceled",
		enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:       "Terminated",
		enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW: "ContinuedAsNew",
		enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:        "TimedOut",
	}
	if n, ok := names[st]; ok {
		return n
	}
	return st.String()
}

// pollers counts the workers polling queue for workflow tasks, or -1
// when the server cannot tell.
func (c *Client) pollers(ctx context.Context, queue string) int {
	resp, err := c.c.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return -1
	}
	return len(resp.GetPollers())
}
