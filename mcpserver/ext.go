package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/signals"
)

// MCP's Tasks extension (io.modelcontextprotocol/tasks, SEP-2663, the
// 2026-07-28 revision), served to a client that declares it in a
// request's _meta: a plan started with tools/call is answered as a task
// handle (resultType "task"), tasks/get answers the task in detail (the
// forms the plan waits for as inputRequests, the result once it ended),
// tasks/update answers those forms and tasks/cancel cancels. Such a
// client has no tasks/result nor tasks/list. A client that does not
// declare it is served the 2025-11-25 revision (tasks.go).

// ExtTasks names the extension.
const ExtTasks = "io.modelcontextprotocol/tasks"

// MethodTasksUpdate answers a task's input requests (extension only).
const MethodTasksUpdate = "tasks/update"

const (
	// clientCapsKey is where a request's _meta holds the client's
	// capabilities for that request.
	clientCapsKey = "io.modelcontextprotocol/clientCapabilities"
	// codeMissingCapability is the JSON-RPC error of a request the
	// client's capabilities do not allow.
	codeMissingCapability = -32021
	// Result types of the extension's answers.
	resultComplete = "complete"
	resultTask     = "task"
	// methodElicit is the request an input request stands for.
	methodElicit = "elicitation/create"
)

// declaresExt reports whether a request's _meta declares the extension.
func declaresExt(meta map[string]any) bool {
	caps, _ := meta[clientCapsKey].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	_, ok := exts[ExtTasks]
	return ok
}

// errMissingExt refuses a method of the extension to a client that did
// not declare it.
func errMissingExt(method string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{ExtTasks: map[string]any{}}}})
	return &jsonrpc.Error{Code: codeMissingCapability, Data: data, Message: fmt.Sprintf(
		"Missing required client capability: %s needs the %s extension declared in _meta[%q]", method, ExtTasks, clientCapsKey)}
}

// extTask is a task as the extension answers it (a DetailedTask): the
// status's own fields inline.
type extTask struct {
	mcp.ResultBase
	ResultType     string     `json:"resultType"`
	TaskID         string     `json:"taskId"`
	Status         TaskStatus `json:"status"`
	StatusMessage  string     `json:"statusMessage,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	LastUpdatedAt  time.Time  `json:"lastUpdatedAt"`
	TTLMs          int64      `json:"ttlMs"`
	PollIntervalMs int64      `json:"pollIntervalMs,omitempty"`
	// InputRequests, while input_required, are the forms the plan waits
	// for, keyed as tasks/update answers them.
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	// Result, once completed, is what plan_result answers.
	Result *mcp.CallToolResult `json:"result,omitempty"`
	// Error, once failed, says why.
	Error *rpcError `json:"error,omitempty"`
}

// inputRequest is a server-to-client request inside a task.
type inputRequest struct {
	Method string            `json:"method"`
	Params *mcp.ElicitParams `json:"params"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// extAck is the empty answer of tasks/update and tasks/cancel.
type extAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func ack() *extAck { return &extAck{ResultType: resultComplete} }

// extOf is t as the extension answers it.
func extOf(t Task, resultType string) *extTask {
	return &extTask{ResultType: resultType, TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTL, PollIntervalMs: t.PollInterval}
}

// extMethod answers a tasks/* request of a client that declared the
// extension; handled false leaves it to the 2025-11-25 methods.
func (s *server) extMethod(ctx context.Context, method string, req mcp.Request) (res mcp.Result, handled bool, err error) {
	var meta map[string]any
	p, _ := req.GetParams().(*taskParams)
	if p != nil {
		meta = p.Meta
	}
	if l, ok := req.GetParams().(*listTasksParams); ok && l != nil {
		meta = l.Meta
	}
	if !declaresExt(meta) {
		return nil, false, nil
	}
	switch method {
	case MethodTasksGet:
		res, err = s.extGet(ctx, p)
	case MethodTasksCancel:
		res, err = s.extCancel(ctx, p)
	default:
		err = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf(
			"%s is not a method of the %s extension: poll %s for the task's result", method, ExtTasks, MethodTasksGet)}
	}
	return res, true, err
}

// extGet answers tasks/get: the task as it stands, with the form the
// plan waits for, its result once it completed, or its error once it
// failed.
func (s *server) extGet(ctx context.Context, p *taskParams) (*extTask, error) {
	id, ctx, cancel, err := s.onTask(ctx, p)
	defer cancel()
	if err != nil {
		return nil, err
	}
	t, err := s.task(ctx, id)
	if err != nil {
		return nil, err
	}
	out := extOf(t, resultComplete)
	switch t.Status {
	case TaskInputRequired:
		q, err := s.question(ctx, id)
		if err != nil {
			return nil, err
		}
		out.InputRequests = map[string]inputRequest{}
		out.StatusMessage += "; answer its inputRequests with " + MethodTasksUpdate
		if q != nil {
			out.InputRequests[q.key] = inputRequest{Method: methodElicit, Params: &mcp.ElicitParams{
				Mode: "form", Message: q.message, RequestedSchema: q.schema}}
		}
	case TaskCompleted:
		res, err := s.plans.Result(ctx, id)
		out.Result = taskOutcome(id, res, s.refusal(ctx, id, err))
	case TaskFailed:
		out.Error = &rpcError{Code: jsonrpc.CodeInternalError, Message: t.StatusMessage}
	}
	return out, nil
}

// extCancel answers tasks/cancel: an open plan is cancelled with the
// caller named; one that ended is left as it is (the extension's cancel
// is a wish, acknowledged either way).
func (s *server) extCancel(ctx context.Context, p *taskParams) (*extAck, error) {
	id, ctx, cancel, err := s.onTask(ctx, p)
	defer cancel()
	if err != nil {
		return nil, err
	}
	info, err := s.describe(ctx, id)
	if err != nil {
		return nil, err
	}
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return ack(), nil
	}
	err = s.plans.Cancel(ctx, id, signals.ControlRequest{By: s.caller.Identity, Reason: "cancelled with " + MethodTasksCancel})
	if isNotFound(err) {
		return nil, errNoTask(id)
	}
	if err != nil {
		return nil, s.refusal(ctx, id, err)
	}
	return ack(), nil
}

// callAsExtTask answers the tools/call r of a client that declared the
// extension: a tool that starts a plan is answered with the plan's task
// handle; any other, and a refusal, as the tool answers.
func (s *server) callAsExtTask(ctx context.Context, r *mcp.CallToolRequest, call func() (mcp.Result, error)) (mcp.Result, error) {
	delete(r.Params.Meta, taskMetaKey)
	if !slices.Contains(taskTools, r.Params.Name) {
		return call()
	}
	t, res, started, err := s.startTask(ctx, r, call, "poll "+MethodTasksGet)
	if err != nil || !started {
		return res, err
	}
	return extOf(t, resultTask), nil
}
