package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The methods of MCP's Tasks (protocol revision 2025-11-25) through which
// a host follows a plan started as a task.
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksList   = "tasks/list"
	MethodTasksCancel = "tasks/cancel"
	MethodTasksResult = "tasks/result"
)

// Defaults of the tasks.
const (
	// DefaultTaskTTL is a task's ttl when the namespace's retention
	// cannot be read (WithNamespace not given, or Temporal refused to
	// describe it): a day, the retention of a namespace the Temporal
	// dev server makes.
	DefaultTaskTTL = 24 * time.Hour
	// TaskPollInterval is how often a host is told to poll tasks/get.
	TaskPollInterval = time.Second
	// TasksPageSize bounds the tasks of one tasks/list page.
	TasksPageSize = 50
	// codeTaskOpen is the JSON-RPC error of a tasks/result whose plan did
	// not end within the call timeout: the host calls it again. It is the
	// code MCP's SDKs give a request that timed out.
	codeTaskOpen = -32001
	// relatedTaskKey is the _meta key that ties a message to its task.
	relatedTaskKey = "io.modelcontextprotocol/related-task"
)

// Task is a plan as an MCP task: its id is the plan's, and everything it
// says comes from Temporal when asked.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt is the plan's start; LastUpdatedAt its end once it
	// ended, else the time its standing was read.
	CreatedAt     time.Time `json:"createdAt"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt"`
	// TTL is how long, in milliseconds, the task is kept: the
	// namespace's retention.
	TTL int64 `json:"ttl"`
	// PollInterval is the milliseconds a host waits between tasks/get.
	PollInterval int64 `json:"pollInterval"`
}

// taskParams names the task of tasks/get, tasks/cancel and tasks/result.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// taskResult answers tasks/get and tasks/cancel: the task itself.
type taskResult struct {
	mcp.ResultBase
	Task
}

// listTasksParams is tasks/list's.
type listTasksParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// listTasksResult answers tasks/list.
type listTasksResult struct {
	mcp.ResultBase
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// createTaskResult answers a tools/call made as a task.
type createTaskResult struct {
	mcp.ResultBase
	Task Task `json:"task"`
}

// invalidParams is the JSON-RPC error of params the method cannot take.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// errNoTask is the answer for a task id no plan has, and for a plan of a
// tenant the caller may not see: MCP answers an unknown task as invalid
// params, and the two read alike.
func errNoTask(id string) error { return invalidParams("task not found: %s", id) }

// addTasks registers the tasks/* methods on srv.
func (s *server) addTasks(srv *mcp.Server) {
	must := func(err error) {
		if err != nil {
			panic(fmt.Sprintf("mcpserver: %v", err))
		}
	}
	must(mcp.AddReceivingCustomMethod(srv, MethodTasksGet, s.taskGet))
	must(mcp.AddReceivingCustomMethod(srv, MethodTasksList, s.taskList))
	must(mcp.AddReceivingCustomMethod(srv, MethodTasksCancel, s.taskCancel))
	must(mcp.AddReceivingCustomMethod(srv, MethodTasksResult, s.taskResult))
	must(mcp.AddReceivingCustomMethod(srv, MethodTasksUpdate, s.taskUpdate))
}

// taskID checks the params of a method on one task and returns its id.
func taskID(p *taskParams) (string, error) {
	if p == nil {
		return "", invalidParams("params with taskId are required")
	}
	if err := checkPlanID(p.TaskID); err != nil {
		return "", invalidParams("taskId%s", strings.TrimPrefix(err.Error(), "planId"))
	}
	return p.TaskID, nil
}

// onTask is the prologue of a method on one task: p's task id, checked,
// and ctx bounded by the call timeout, whose cancel the caller defers.
func (s *server) onTask(ctx context.Context, p *taskParams) (string, context.Context, context.CancelFunc, error) {
	id, err := taskID(p)
	if err != nil {
		return "", ctx, func() {}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	return id, ctx, cancel, nil
}

// taskGet answers tasks/get: the task of the plan as it stands.
func (s *server) taskGet(ctx context.Context, _ *mcp.ServerSession, p *taskParams) (*taskResult, error) {
	id, ctx, cancel, err := s.onTask(ctx, p)
	defer cancel()
	if err != nil {
		return nil, err
	}
	t, err := s.task(ctx, id)
	if err != nil {
		return nil, err
	}
	return &taskResult{Task: t}, nil
}

// task is the task of plan id, which the caller must see: its status
// from the plan's standing (its progress, from its event log or its
// query, else its search attributes).
func (s *server) task(ctx context.Context, id string) (Task, error) {
	info, err := s.describe(ctx, id)
	if err != nil {
		return Task{}, err
	}
	t := s.taskOfInfo(ctx, info)
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return t, nil
	}
	st, err := s.plans.Standing(ctx, id)
	if isNotFound(err) {
		return Task{}, errNoTask(id)
	}
	if err != nil {
		return Task{}, s.refusal(ctx, id, err)
	}
	t.Status, t.StatusMessage = standingStatus(st)
	return t, nil
}

// describe is what Temporal knows of plan id, once the caller may see
// it; an unknown plan or one of another tenant is errNoTask.
func (s *server) describe(ctx context.Context, id string) (*workflowpb.WorkflowExecutionInfo, error) {
	desc, err := s.plans.Temporal().DescribeWorkflow(ctx, id, "")
	if isNotFound(err) {
		return nil, errNoTask(id)
	}
	if err != nil {
		return nil, s.refusal(ctx, id, fmt.Errorf("plan %s: describe: %w", id, err))
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	if !s.caller.mayUse(info.GetPriority().GetFairnessKey()) {
		return nil, errNoTask(id)
	}
	return info, nil
}

// taskOfInfo is the task of a plan as visibility or a describe answer
// it: its status from Temporal's and the search attributes the run set
// last.
func (s *server) taskOfInfo(ctx context.Context, info *workflowpb.WorkflowExecutionInfo) Task {
	t := Task{TaskID: info.GetExecution().GetWorkflowId(), CreatedAt: info.GetStartTime().AsTime(),
		LastUpdatedAt: time.Now().UTC(), TTL: s.ttl(ctx).Milliseconds(), PollInterval: TaskPollInterval.Milliseconds()}
	if info.GetCloseTime() != nil {
		t.LastUpdatedAt = info.GetCloseTime().AsTime()
	}
	var phase plan.Phase
	var awaiting signals.Awaiting
	var percent int
	dc := converter.GetDefaultDataConverter()
	fields := info.GetSearchAttributes().GetIndexedFields()
	if v, ok := fields[signals.PhaseAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &phase)
	}
	if v, ok := fields[signals.AwaitingAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &awaiting)
	}
	if v, ok := fields[signals.ProgressAttr.GetName()]; ok {
		_ = dc.FromPayload(v, &percent)
	}
	t.Status, t.StatusMessage = executionStatus(info.GetStatus(), phase, awaiting, percent)
	return t
}

// taskList answers tasks/list: the caller's plans on the task queue,
// newest first, a page of visibility at a time. The cursor is the
// page's token as Temporal wrote it; a page of a caller limited to
// tenants holds theirs only, and may be short.
func (s *server) taskList(ctx context.Context, _ *mcp.ServerSession, p *listTasksParams) (*listTasksResult, error) {
	var token []byte
	if p != nil && p.Cursor != "" {
		var err error
		if token, err = base64.RawURLEncoding.DecodeString(p.Cursor); err != nil || len(p.Cursor) > maxCursorBytes {
			return nil, invalidParams("cursor: not one tasks/list answered")
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	resp, err := s.plans.Temporal().ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: listQuery(s.plans.TaskQueue(), "", ""), PageSize: TasksPageSize, NextPageToken: token,
	})
	if err != nil {
		if token != nil {
			return nil, invalidParams("cursor: %v", err)
		}
		return nil, fmt.Errorf("list plans: %w", err)
	}
	out := &listTasksResult{Tasks: []Task{}, NextCursor: base64.RawURLEncoding.EncodeToString(resp.GetNextPageToken())}
	for _, e := range resp.GetExecutions() {
		if s.caller.limited() {
			tenant, err := tenantOf(ctx, s.plans.Temporal(), e.GetExecution().GetWorkflowId())
			if isNotFound(err) || (err == nil && !s.caller.mayUse(tenant)) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		out.Tasks = append(out.Tasks, s.taskOfInfo(ctx, e))
	}
	return out, nil
}

// maxCursorBytes bounds a tasks/list cursor.
const maxCursorBytes = 4096

// taskCancel answers tasks/cancel: the plan is cancelled (it stops its
// work and writes a partial summary) and its task answered cancelled. A
// plan that already ended cannot be, as MCP says, and is invalid params.
// The plan's history records the request with the caller and the reason.
func (s *server) taskCancel(ctx context.Context, _ *mcp.ServerSession, p *taskParams) (*taskResult, error) {
	id, ctx, cancel, err := s.onTask(ctx, p)
	defer cancel()
	if err != nil {
		return nil, err
	}
	info, err := s.describe(ctx, id)
	if err != nil {
		return nil, err
	}
	t := s.taskOfInfo(ctx, info)
	if t.Status.terminal() {
		return nil, invalidParams("task %s is already %s: it cannot be cancelled", id, t.Status)
	}
	if err := s.plans.Cancel(ctx, id, signals.ControlRequest{By: s.caller.Identity, Reason: "cancelled with " + MethodTasksCancel}); err != nil {
		if isNotFound(err) {
			return nil, errNoTask(id)
		}
		return nil, s.refusal(ctx, id, err)
	}
	t.Status, t.StatusMessage, t.LastUpdatedAt = TaskCancelled, "the plan is cancelled: it stops its work and writes a partial summary", time.Now().UTC()
	return &taskResult{Task: t}, nil
}

// taskResult answers tasks/result: what plan_result answers once the
// plan ended, tied to its task. It waits for the end at most the call
// timeout; past it the host is told to call again. While the plan waits
// for a person and the session can elicit, it asks the person (see
// elicit); otherwise it only waits, and the plan's inputs are answered
// with the plan_* tools.
func (s *server) taskResult(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*mcp.CallToolResult, error) {
	id, ctx, cancel, err := s.onTask(ctx, p)
	defer cancel()
	if err != nil {
		return nil, err
	}
	info, err := s.describe(ctx, id)
	if err != nil {
		return nil, err
	}
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		stop := s.followCall(ctx, ss, id, p.Meta[progressTokenKey])
		defer stop()
		if err := s.awaitEnd(ctx, ss, id); err != nil {
			return nil, err
		}
	}
	res, err := s.plans.Result(ctx, id)
	if err != nil && ctx.Err() != nil {
		return nil, s.stillOpen(id)
	}
	out := taskOutcome(id, res, s.refusal(ctx, id, err))
	out.Meta = mcp.Meta{relatedTaskKey: map[string]any{"taskId": id}}
	return out, nil
}

// awaitEnd returns once plan id ended, or with the JSON-RPC error that
// tells the host to call again once ctx is done. A session that can
// elicit is asked what the plan waits for, as it stands every poll
// interval; any other waits on the plan's result.
func (s *server) awaitEnd(ctx context.Context, ss *mcp.ServerSession, id string) error {
	if !s.canElicit(ss) {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_, err := s.plans.Result(wctx, id)
		if err != nil && ctx.Err() != nil {
			return s.stillOpen(id)
		}
		return nil
	}
	for {
		st, err := s.plans.Standing(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return s.stillOpen(id)
			}
			return s.refusal(ctx, id, err)
		}
		if st.Status != "Running" {
			return nil
		}
		if status, _ := standingStatus(st); status == TaskInputRequired {
			if err := s.elicit(ctx, ss, id); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return s.stillOpen(id)
		case <-time.After(TaskPollInterval):
		}
	}
}

// stillOpen is the JSON-RPC error of a tasks/result whose plan did not
// end within the call timeout.
func (s *server) stillOpen(id string) error {
	return &jsonrpc.Error{Code: codeTaskOpen, Message: fmt.Sprintf(
		"task %s has not ended within %s: call %s again (and %s says how it stands)", id, s.timeout, MethodTasksResult, MethodTasksGet)}
}

// taskOutcome is the CallToolResult a task's result is for plan id: what
// the tool that started it (plan_start, plan_fork) answers, its Result in
// it, or the refusal err.
func taskOutcome(id string, res signals.Result, err error) *mcp.CallToolResult {
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
	}
	out := startOutput{PlanID: id, Result: &res}
	b, merr := json.Marshal(out)
	if merr != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: merr.Error()}}}
	}
	return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
