package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/signals"
)

// TestMCPTasksDriveAPlanOverHTTP drives a plan as an MCP task over
// planmode serve's /mcp with a bearer token, in raw JSON-RPC as a host
// on any SDK sends it: plan_start as a task answers the plan's task,
// tasks/get follows it until it waits for a selection (input_required),
// plan_select answers it, and tasks/result answers the plan's result
// tied to its task.
func TestMCPTasksDriveAPlanOverHTTP(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	const token = "mcp-tasks-token-0123456789abcdef"
	tokens := tokensFile(t, token+" agent-host")
	url := startServe(t, ctx, pw, tokens) + "/mcp"

	created := startTask(t, ctx, url, token)
	assert.Equal(t, mcpserver.TaskWorking, created.Status)
	assert.Positive(t, created.TTL)
	id := created.TaskID

	var task mcpserver.Task
	require.Eventually(t, func() bool {
		mcpRPC(t, ctx, url, token, mcpserver.MethodTasksGet, map[string]any{"taskId": id}, &task)
		return task.Status == mcpserver.TaskInputRequired
	}, loadedWait, 200*time.Millisecond, "the plan waits for a selection")
	assert.Equal(t, id, task.TaskID)
	assert.Contains(t, task.StatusMessage, "selection")

	var list struct {
		Tasks []mcpserver.Task `json:"tasks"`
	}
	mcpRPC(t, ctx, url, token, mcpserver.MethodTasksList, map[string]any{}, &list)
	assert.True(t, containsTask(list.Tasks, id), "tasks/list holds the plan")

	var sel struct {
		IsError bool `json:"isError"`
	}
	mcpRPC(t, ctx, url, token, "tools/call", map[string]any{"name": mcpserver.ToolSelect,
		"arguments": map[string]any{"planId": id, "rank": 1}}, &sel)
	require.False(t, sel.IsError)

	var res struct {
		Meta              map[string]map[string]string `json:"_meta"`
		IsError           bool                         `json:"isError"`
		StructuredContent taskOutcome                  `json:"structuredContent"`
	}
	require.Eventually(t, func() bool {
		return mcpTry(t, ctx, url, token, mcpserver.MethodTasksResult, map[string]any{"taskId": id}, &res)
	}, loadedWait, time.Second, "tasks/result answers once the plan ended")
	assert.False(t, res.IsError)
	assert.Equal(t, signals.StatusCompleted, res.StructuredContent.Result.Status, res.StructuredContent.Result.Error)
	assert.Equal(t, id, res.Meta["io.modelcontextprotocol/related-task"]["taskId"])
	mcpRPC(t, ctx, url, token, mcpserver.MethodTasksGet, map[string]any{"taskId": id}, &task)
	assert.Equal(t, mcpserver.TaskCompleted, task.Status)

	var rpcErr struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(mcpPost(t, ctx, url, token, mcpserver.MethodTasksGet,
		map[string]any{"taskId": "no-such-plan-" + pw.queue}), &rpcErr))
	assert.Equal(t, -32602, rpcErr.Error.Code, "an unknown task")
}

// containsTask reports whether tasks hold task id.
func containsTask(tasks []mcpserver.Task, id string) bool {
	for _, t := range tasks {
		if t.TaskID == id {
			return true
		}
	}
	return false
}

// mcpPost posts one JSON-RPC request to url with token and returns the
// response's body.
func mcpPost(t *testing.T, ctx context.Context, url, token, method string, params any) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return b
}

// mcpTry sends method and decodes its result into v; a JSON-RPC error
// answers false.
func mcpTry(t *testing.T, ctx context.Context, url, token, method string, params, v any) bool {
	t.Helper()
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	b := mcpPost(t, ctx, url, token, method, params)
	require.NoError(t, json.Unmarshal(b, &a), string(b))
	if a.Error != nil {
		t.Logf("%s: %d %s", method, a.Error.Code, a.Error.Message)
		return false
	}
	require.NoError(t, json.Unmarshal(a.Result, v), string(a.Result))
	return true
}

// mcpRPC sends method and decodes its result into v; a JSON-RPC error
// fails the test.
func mcpRPC(t *testing.T, ctx context.Context, url, token, method string, params, v any) {
	t.Helper()
	require.True(t, mcpTry(t, ctx, url, token, method, params, v), "%s answers", method)
}

// startTask calls plan_start as a task over url with token, for a plan of
// the feature template that waits for a selection, and returns the task.
func startTask(t *testing.T, ctx context.Context, url, token string) mcpserver.Task {
	t.Helper()
	var created struct {
		Task mcpserver.Task `json:"task"`
	}
	mcpRPC(t, ctx, url, token, "tools/call", map[string]any{"name": mcpserver.ToolStart,
		"arguments": map[string]any{"goal": "Add a health check endpoint", "template": "feature",
			"selection": map[string]any{"mode": "manual"}},
		"task": map[string]any{"ttl": 60000}}, &created)
	require.NotEmpty(t, created.Task.TaskID)
	return created.Task
}

// taskOutcome is the structured content of tasks/result for a plan
// started as a task: plan_start's answer with the plan's Result in it.
type taskOutcome struct {
	PlanID string         `json:"planId"`
	Result signals.Result `json:"result"`
}
