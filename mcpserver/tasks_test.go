package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// rawAnswer is a JSON-RPC response with its result left raw.
type rawAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send posts method with params to url as token and decodes the answer.
func send(t *testing.T, url, token, method string, params any) rawAnswer {
	t.Helper()
	_, body := post(t, url, token, rpc(t, method, params))
	var a rawAnswer
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	return a
}

// task decodes a result that is a Task.
func taskOf(t *testing.T, a rawAnswer) Task {
	t.Helper()
	require.Nil(t, a.Error, "an answer, not an error: %+v", a.Error)
	var task Task
	require.NoError(t, json.Unmarshal(a.Result, &task), string(a.Result))
	return task
}

func TestTasksAreAdvertised(t *testing.T) {
	url := serveMCP(t, newFakePlans())
	a := send(t, url, adminToken, "initialize", map[string]any{"protocolVersion": "2025-11-25",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	require.Nil(t, a.Error)
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &init))
	assert.JSONEq(t, `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`, string(init.Capabilities["tasks"]))
	assert.Contains(t, init.Capabilities, "tools", "the SDK's capabilities are kept")

	a = send(t, url, adminToken, "tools/list", map[string]any{})
	require.Nil(t, a.Error)
	var list struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &list))
	require.Len(t, list.Tools, len(allTools))
	for _, tool := range list.Tools {
		if tool.Name == ToolStart || tool.Name == ToolFork {
			assert.JSONEq(t, `{"taskSupport":"optional"}`, string(tool.Execution), tool.Name)
		} else {
			assert.Empty(t, tool.Execution, tool.Name)
		}
	}
}

func TestPlanStartAsATaskAnswersThePlansTask(t *testing.T) {
	f := newFakePlans()
	f.add("parent", "team-a")
	url := serveMCP(t, f)
	a := send(t, url, teamAToken, "tools/call", map[string]any{"name": ToolStart,
		"arguments": map[string]any{"goal": "Add JWT authentication"}, "task": map[string]any{"ttl": 60000}})
	require.Nil(t, a.Error, string(a.Result))
	var created struct {
		Task Task `json:"task"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &created), string(a.Result))
	calls := f.recorded()
	require.Len(t, calls, 1)
	assert.Equal(t, "start", calls[0].op)
	assert.Equal(t, calls[0].id, created.Task.TaskID, "the task is the plan")
	assert.Equal(t, "team-a", calls[0].req.(signals.StartRequest).Tenant)
	assert.Equal(t, TaskWorking, created.Task.Status)
	assert.Equal(t, DefaultTaskTTL.Milliseconds(), created.Task.TTL)
	assert.Equal(t, int64(1000), created.Task.PollInterval)
	assert.False(t, created.Task.CreatedAt.IsZero())

	a = send(t, url, teamAToken, "tools/call", map[string]any{"name": ToolFork,
		"arguments": map[string]any{"planId": "parent", "stepId": "s1", "newPlanId": "child"}, "task": map[string]any{}})
	require.Nil(t, a.Error, string(a.Result))
	require.NoError(t, json.Unmarshal(a.Result, &created), string(a.Result))
	assert.Equal(t, "child", created.Task.TaskID)

	_, body := post(t, url, teamAToken, rpc(t, "tools/call", map[string]any{"name": ToolStart,
		"arguments": map[string]any{"goal": ""}, "task": map[string]any{}}))
	ans := answerOf(t, body)
	require.NotNil(t, ans.Result, "a refused start is the tool's refusal, and no task: %s", body)
	assert.True(t, ans.Result.IsError)

	for _, tc := range []struct {
		name string
		call map[string]any
		code int
	}{
		{"a tool that is no task", map[string]any{"name": ToolStatus, "arguments": map[string]any{"planId": "parent"}, "task": map[string]any{}}, -32601},
		{"a task that is no object", map[string]any{"name": ToolStart, "arguments": map[string]any{"goal": "x"}, "task": "soon"}, -32602},
		{"a negative ttl", map[string]any{"name": ToolStart, "arguments": map[string]any{"goal": "x"}, "task": map[string]any{"ttl": -1}}, -32602},
		{"a ttl that is no number", map[string]any{"name": ToolStart, "arguments": map[string]any{"goal": "x"}, "task": map[string]any{"ttl": "1h"}}, -32602},
	} {
		a := send(t, url, teamAToken, "tools/call", tc.call)
		require.NotNil(t, a.Error, tc.name)
		assert.Equal(t, tc.code, a.Error.Code, "%s: %s", tc.name, a.Error.Message)
	}
	assert.Len(t, f.recorded(), 2, "the refused calls started nothing")
}

func TestStandingToTaskStatus(t *testing.T) {
	query := func(awaiting signals.Awaiting, paused bool) planclient.Standing {
		return planclient.Standing{Status: "Running", Source: planclient.SourceQuery,
			Progress: &signals.Progress{Phase: plan.PhaseExecuting, Awaiting: awaiting, Percent: 40, Paused: paused}}
	}
	for _, tc := range []struct {
		name  string
		st    planclient.Standing
		want  TaskStatus
		words string
	}{
		{"executing", query(signals.AwaitingNone, false), TaskWorking, "phase executing, 40%"},
		{"selection", query(signals.AwaitingSelection, false), TaskInputRequired, "waits for selection: plan_options"},
		{"clarification", query(signals.AwaitingClarification, false), TaskInputRequired, "plan_answer"},
		{"confirmation", query(signals.AwaitingConfirmation, false), TaskInputRequired, "plan_confirm_skip"},
		{"approval", query(signals.AwaitingApproval, false), TaskInputRequired, "plan_approve"},
		{"paused", query(signals.AwaitingResume, true), TaskWorking, "paused, waits for resume"},
		{"workspace", query(signals.AwaitingWorkspace, false), TaskWorking, "waits for workspace"},
		{"queued", planclient.Standing{Status: "Running", Queued: true, TaskQueue: "q"}, TaskWorking, "no worker is polling"},
		{"from search attributes", planclient.Standing{Status: "Running", Source: planclient.SourceSearchAttributes,
			Phase: plan.PhaseAwaitingSelection, Awaiting: signals.AwaitingSelection, Percent: 10, Note: "no answer within 3s"},
			TaskInputRequired, "no answer within 3s"},
	} {
		got, msg := standingStatus(tc.st)
		assert.Equal(t, tc.want, got, tc.name)
		assert.Contains(t, msg, tc.words, tc.name)
	}
	for st, want := range map[enumspb.WorkflowExecutionStatus]TaskStatus{
		enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:  TaskCompleted,
		enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:     TaskFailed,
		enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:   TaskCancelled,
		enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED: TaskFailed,
		enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:  TaskFailed,
		enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:    TaskWorking,
	} {
		got, _ := executionStatus(st, plan.PhaseCompleted, signals.AwaitingNone, 100)
		assert.Equal(t, want, got, st.String())
	}
}

func TestTasksGetListCancelResult(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "team-a")
	f.add("done", "team-a")
	f.done("done")
	f.add("working", "team-a").awaiting = signals.AwaitingNone
	f.add("theirs", "team-b")
	url := serveMCP(t, f)

	got := taskOf(t, send(t, url, teamAToken, MethodTasksGet, map[string]any{"taskId": "ours"}))
	assert.Equal(t, "ours", got.TaskID)
	assert.Equal(t, TaskInputRequired, got.Status)
	assert.Contains(t, got.StatusMessage, "40%")
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), got.CreatedAt.UTC())
	assert.Equal(t, TaskWorking, taskOf(t, send(t, url, teamAToken, MethodTasksGet, map[string]any{"taskId": "working"})).Status)
	got = taskOf(t, send(t, url, teamAToken, MethodTasksGet, map[string]any{"taskId": "done"}))
	assert.Equal(t, TaskCompleted, got.Status)
	assert.Equal(t, time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC), got.LastUpdatedAt.UTC(), "the end")

	a := send(t, url, teamAToken, MethodTasksList, map[string]any{})
	require.Nil(t, a.Error)
	var list struct {
		Tasks []Task `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &list))
	var ids []string
	for _, task := range list.Tasks {
		ids = append(ids, task.TaskID)
	}
	assert.ElementsMatch(t, []string{"ours", "done", "working"}, ids, "a tenant's token lists its plans only")
	a = send(t, url, adminToken, MethodTasksList, nil)
	require.Nil(t, a.Error)
	require.NoError(t, json.Unmarshal(a.Result, &list))
	assert.Len(t, list.Tasks, 4)

	a = send(t, url, teamAToken, MethodTasksResult, map[string]any{"taskId": "done"})
	require.Nil(t, a.Error)
	var res struct {
		Meta              map[string]map[string]string `json:"_meta"`
		IsError           bool                         `json:"isError"`
		StructuredContent startOutput                  `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &res), string(a.Result))
	assert.False(t, res.IsError)
	require.NotNil(t, res.StructuredContent.Result, "plan_start's answer with the Result in it")
	assert.Equal(t, "done", res.StructuredContent.PlanID)
	assert.Equal(t, signals.StatusCompleted, res.StructuredContent.Result.Status)
	assert.Equal(t, "done", res.Meta[relatedTaskKey]["taskId"])

	got = taskOf(t, send(t, url, teamAToken, MethodTasksCancel, map[string]any{"taskId": "ours"}))
	assert.Equal(t, TaskCancelled, got.Status)
	calls := f.recorded()
	require.NotEmpty(t, calls)
	assert.Equal(t, call{op: "cancel", id: "ours", req: signals.ControlRequest{By: "dashboard", Reason: "cancelled with tasks/cancel"}},
		calls[len(calls)-1], "the cancel names its caller")
	a = send(t, url, teamAToken, MethodTasksCancel, map[string]any{"taskId": "done"})
	require.NotNil(t, a.Error, "a task that ended cannot be cancelled")
	assert.Equal(t, -32602, a.Error.Code)
	assert.Contains(t, a.Error.Message, "already completed")
}

func TestTasksRefuseForeignUnknownAndMalformed(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "team-a")
	f.add("theirs", "team-b")
	url := serveMCP(t, f)
	for _, method := range []string{MethodTasksGet, MethodTasksCancel, MethodTasksResult} {
		foreign := send(t, url, teamAToken, method, map[string]any{"taskId": "theirs"})
		unknown := send(t, url, teamAToken, method, map[string]any{"taskId": "nobody"})
		require.NotNil(t, foreign.Error, method)
		require.NotNil(t, unknown.Error, method)
		assert.Equal(t, -32602, foreign.Error.Code, method)
		assert.Equal(t, unknown.Error.Code, foreign.Error.Code, "%s: another tenant's task reads as an unknown one", method)
		assert.Equal(t, "task not found: theirs", foreign.Error.Message, method)
		assert.Equal(t, "task not found: nobody", unknown.Error.Message, method)
		for _, params := range []any{
			map[string]any{},
			map[string]any{"taskId": ""},
			map[string]any{"taskId": 42},
			map[string]any{"taskId": "a\x00b"},
			map[string]any{"taskId": strings.Repeat("x", signals.MaxWorkflowIDBytes+1)},
			[]string{"ours"},
			nil,
		} {
			a := send(t, url, teamAToken, method, params)
			require.NotNil(t, a.Error, "%s %v", method, params)
			assert.Equal(t, -32602, a.Error.Code, "%s %v: %s", method, params, a.Error.Message)
		}
	}
	for _, cursor := range []any{"!!not base64!!", strings.Repeat("A", maxCursorBytes+4), 7} {
		a := send(t, url, teamAToken, MethodTasksList, map[string]any{"cursor": cursor})
		require.NotNil(t, a.Error, "cursor %v", cursor)
		assert.Equal(t, -32602, a.Error.Code)
	}
	assert.Empty(t, f.recorded(), "nothing was changed")
}

func TestTaskResultWaitsAtMostTheCallTimeout(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "")
	cs := connectTasks(t, f, nil, WithCallTimeout(200*time.Millisecond))
	_, err := mcp.CallCustomMethod[*taskParams, *mcp.CallToolResult](context.Background(), cs, MethodTasksResult,
		&taskParams{TaskID: "ours"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "call tasks/result again")
}

// connectTasks serves New(plans, opts) over TaskTransport to a go-sdk
// client that can send the tasks methods and, when elicit is set,
// answers elicitations with it.
func connectTasks(t *testing.T, plans Plans, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), opts ...Option) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(plans, opts...).Connect(ctx, TaskTransport(st), nil)
	require.NoError(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	require.NoError(t, mcp.AddSendingCustomMethod[*taskParams, *mcp.CallToolResult](c, MethodTasksResult))
	require.NoError(t, mcp.AddSendingCustomMethod[*taskParams, *taskResult](c, MethodTasksGet))
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: elicitingProtocol})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
	})
	return cs
}

// TestTaskResultElicitsTheSelection: over a session that elicits,
// tasks/result asks the person for the option, selects it as the
// caller, and answers the plan's result once it ended.
func TestTaskResultElicitsTheSelection(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "").awaiting = signals.AwaitingSelection
	f.endOnSelect = true
	var asked *mcp.ElicitParams
	cs := connectTasks(t, f, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"optionId": "r1-o1", "feedback": "go"}}, nil
	}, WithCaller(alice))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := mcp.CallCustomMethod[*taskParams, *mcp.CallToolResult](ctx, cs, MethodTasksResult, &taskParams{TaskID: "ours"})
	require.NoError(t, err)
	require.NotNil(t, asked, "the person was asked")
	assert.Contains(t, asked.Message, "r1-o1")
	schema, err := json.Marshal(asked.RequestedSchema)
	require.NoError(t, err)
	assert.Contains(t, string(schema), `"default":"r1-o1"`, "the recommended option is the default")
	assert.False(t, res.IsError, text(res))
	assert.Equal(t, map[string]any{"taskId": "ours"}, res.Meta[relatedTaskKey])
	calls := f.recorded()
	require.Len(t, calls, 1)
	assert.Equal(t, signals.SelectOptionRequest{OptionID: "r1-o1", Feedback: "go", By: "alice"}, calls[0].req)
}

// TestTaskResultAsksAgainWhenRefused: a refused answer is asked again
// with the plan's reason; a cancelled form leaves the plan waiting.
func TestTaskResultAsksAgainWhenRefused(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "").awaiting = signals.AwaitingSelection
	f.refuse[signals.SelectOption.Name] = "option r1-o1 is stale"
	var messages []string
	cs := connectTasks(t, f, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		messages = append(messages, req.Params.Message)
		if len(messages) == 1 {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"optionId": "r1-o1"}}, nil
		}
		return &mcp.ElicitResult{Action: "cancel"}, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := mcp.CallCustomMethod[*taskParams, *mcp.CallToolResult](ctx, cs, MethodTasksResult, &taskParams{TaskID: "ours"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the plan still waits")
	require.Len(t, messages, 2)
	assert.Contains(t, messages[1], "option r1-o1 is stale", "asked again with the reason")
}

// TestTaskResultDeclinedApprovalDenies: declining a gated call's form
// denies the call, bound to its request.
func TestTaskResultDeclinedApprovalDenies(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "").awaiting = signals.AwaitingApproval
	cs := connectTasks(t, f, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if strings.Contains(req.Params.Message, "write_file") {
			f.done("ours")
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}, WithCaller(alice))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := mcp.CallCustomMethod[*taskParams, *mcp.CallToolResult](ctx, cs, MethodTasksResult, &taskParams{TaskID: "ours"})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	calls := f.recorded()
	require.Len(t, calls, 1)
	deny := calls[0].req.(signals.DenyToolCallRequest)
	assert.Equal(t, "ap-1", deny.RequestID)
	assert.Equal(t, "alice", deny.By)
}
