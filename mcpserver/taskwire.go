package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK this package is built on knows MCP's Tasks only as custom
// methods: it drops a tools/call's params.task when it decodes the call,
// and has no field for the tasks capability nor for a tool's execution.
// So the task request travels in the call's _meta under taskMetaKey
// (moveTaskParam puts it there as a message arrives), and a receiving
// middleware answers the call as a task and adds the capability and the
// tools' execution to what initialize and tools/list answer.

// taskMetaKey is where a tools/call's params.task travels.
const taskMetaKey = "planmode/task"

// taskTools are the tools a host may call as tasks: those that start a
// plan, whose task is the plan.
var taskTools = []string{ToolStart, ToolFork}

// moveTaskParam is the params of a tools/call with params.task moved to
// params._meta[taskMetaKey], and whether they changed. Params that hold
// no task, or that are not objects, come back as they were, for the SDK
// to judge.
func moveTaskParam(params json.RawMessage) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(params, &fields) != nil {
		return params, false
	}
	task, ok := fields["task"]
	if !ok {
		return params, false
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params, false
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[taskMetaKey] = task
	delete(fields, "task")
	m, err := json.Marshal(meta)
	if err != nil {
		return params, false
	}
	fields["_meta"] = m
	out, err := json.Marshal(fields)
	if err != nil {
		return params, false
	}
	return out, true
}

// moveTaskParamOfMessage is body, one JSON-RPC message, with a
// tools/call's params.task moved as moveTaskParam does; any other body
// comes back as it was.
func moveTaskParamOfMessage(body []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return body
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method != methodCallTool || msg["params"] == nil {
		return body
	}
	params, moved := moveTaskParam(msg["params"])
	if !moved {
		return body
	}
	msg["params"] = params
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}

// Methods whose answers the task middleware changes.
const (
	methodInitialize = "initialize"
	methodDiscover   = "server/discover"
	methodListTools  = "tools/list"
	methodCallTool   = "tools/call"
)

// TaskTransport is t with each tools/call's params.task kept (see
// moveTaskParam): serve New over it for a host to call plan_start and
// plan_fork as tasks.
func TaskTransport(t mcp.Transport) mcp.Transport { return taskTransport{t} }

type taskTransport struct{ mcp.Transport }

func (t taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return taskConn{c}, nil
}

// taskConn moves the task of each tools/call it reads.
type taskConn struct{ mcp.Connection }

func (c taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == methodCallTool && len(req.Params) > 0 {
		req.Params, _ = moveTaskParam(req.Params)
	}
	return m, err
}

// Write puts on the wire the notification a carrier carries (see notify).
func (c taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	return c.Connection.Write(ctx, uncarry(msg))
}

// rawResult is a result as it goes on the wire, for answers the SDK has
// no type for.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// edit is res as JSON, changed by f.
func edit(res mcp.Result, f func(map[string]any)) (mcp.Result, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	f(m)
	b, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &rawResult{raw: b}, nil
}

// taskMiddleware answers tools/call made as a task, and tells the host
// that the server takes tasks and which tools do; a request of a client
// that declares the tasks extension is answered as the extension says
// (see ext.go).
func (s *server) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool:
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if declaresExt(r.Params.Meta) {
					return s.callAsExtTask(ctx, r, func() (mcp.Result, error) { return next(ctx, method, req) })
				}
				if _, ok := r.Params.Meta[taskMetaKey]; ok {
					return s.callAsTask(ctx, r, func() (mcp.Result, error) { return next(ctx, method, req) })
				}
			}
			return next(ctx, method, req)
		case methodInitialize, methodDiscover:
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return edit(res, advertise)
		case methodListTools:
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return edit(res, func(m map[string]any) {
				tools, _ := m["tools"].([]any)
				for _, t := range tools {
					if t, ok := t.(map[string]any); ok && slices.Contains(taskTools, fmt.Sprint(t["name"])) {
						t["execution"] = map[string]any{"taskSupport": "optional"}
					}
				}
			})
		case MethodTasksGet, MethodTasksCancel, MethodTasksResult, MethodTasksList:
			if res, handled, err := s.extMethod(ctx, method, req); handled {
				return res, err
			}
		}
		return next(ctx, method, req)
	}
}

// advertise adds to the capabilities of an initialize or server/discover
// answer m the tasks (2025-11-25) and the tasks extension.
func advertise(m map[string]any) {
	caps, _ := m["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		m["capabilities"] = caps
	}
	caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
		"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
	exts, _ := caps["extensions"].(map[string]any)
	if exts == nil {
		exts = map[string]any{}
		caps["extensions"] = exts
	}
	exts[ExtTasks] = map[string]any{}
}

// callAsTask answers the tools/call r, which asks to run as a task: call
// runs the tool, and the plan it started is the task. A tool that cannot
// run as a task is refused, as MCP says, as method not found; a task
// request that is no object, or whose ttl is no number, as invalid
// params. A tool's refusal is its answer, and no task is made.
func (s *server) callAsTask(ctx context.Context, r *mcp.CallToolRequest, call func() (mcp.Result, error)) (mcp.Result, error) {
	task, ok := r.Params.Meta[taskMetaKey].(map[string]any)
	if !ok {
		return nil, invalidParams("task: want an object")
	}
	if ttl, ok := task["ttl"]; ok && ttl != nil {
		if n, ok := ttl.(float64); !ok || n < 0 {
			return nil, invalidParams("task.ttl: want milliseconds, a number not below 0")
		}
	}
	if !slices.Contains(taskTools, r.Params.Name) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("tool %q does not run as a task: only %v do", r.Params.Name, taskTools)}
	}
	delete(r.Params.Meta, taskMetaKey)
	t, res, started, err := s.startTask(ctx, r, call, "follow it with "+MethodTasksGet)
	if err != nil || !started {
		return res, err
	}
	s.followSession(r.Session, t.TaskID, r.Params.GetProgressToken())
	return &createTaskResult{Task: t}, nil
}

// startTask runs call, a start tool's: a plan it started comes back as
// its task, working (started true); a refusal, or an answer that is not
// the tool's, comes back as res. next says how the host follows the
// task.
func (s *server) startTask(ctx context.Context, r *mcp.CallToolRequest, call func() (mcp.Result, error),
	next string) (t Task, res mcp.Result, started bool, err error) {
	res, err = call()
	if err != nil {
		return t, res, false, err
	}
	out, ok := res.(*mcp.CallToolResult)
	if !ok || out.IsError {
		return t, res, false, nil
	}
	plan, err := startedPlan(r.Params.Name, out)
	if err != nil {
		return t, nil, false, err
	}
	now := time.Now().UTC()
	return Task{TaskID: plan.PlanID, Status: TaskWorking,
			StatusMessage: "the plan started (run " + plan.RunID + "): " + next,
			CreatedAt:     now, LastUpdatedAt: now, TTL: s.ttl(ctx).Milliseconds(), PollInterval: TaskPollInterval.Milliseconds()},
		res, true, nil
}

// startedPlan reads the plan that tool's answer out says it started.
func startedPlan(tool string, out *mcp.CallToolResult) (startOutput, error) {
	var started startOutput
	b, err := json.Marshal(out.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &started)
	}
	if err != nil || started.PlanID == "" {
		return started, fmt.Errorf("%s answered no plan id: %v", tool, err)
	}
	return started, nil
}
