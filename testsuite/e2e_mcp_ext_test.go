package testsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/signals"
)

// extMeta declares MCP's tasks extension in a request's _meta.
var extMeta = map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
	"extensions": map[string]any{mcpserver.ExtTasks: map[string]any{}}}}

// extTask is a task as the extension answers it.
type extTask struct {
	ResultType    string               `json:"resultType"`
	TaskID        string               `json:"taskId"`
	Status        mcpserver.TaskStatus `json:"status"`
	StatusMessage string               `json:"statusMessage"`
	TTLMs         int64                `json:"ttlMs"`
	InputRequests map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode            string `json:"mode"`
			RequestedSchema struct {
				Properties struct {
					OptionID struct {
						Default string `json:"default"`
					} `json:"optionId"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		} `json:"params"`
	} `json:"inputRequests"`
	Result *struct {
		IsError           bool        `json:"isError"`
		StructuredContent taskOutcome `json:"structuredContent"`
	} `json:"result"`
}

// extGet is tasks/get of task id as an extension client.
func extGet(t *testing.T, ctx context.Context, url, token, id string) extTask {
	t.Helper()
	var task extTask
	mcpRPC(t, ctx, url, token, mcpserver.MethodTasksGet, map[string]any{"taskId": id, "_meta": extMeta}, &task)
	return task
}

// TestMCPTasksExtensionDrivesAPlan drives a plan over planmode serve's
// /mcp as a client that declares the tasks extension, in raw JSON-RPC:
// plan_start answers a task handle; tasks/get shows input_required with
// the selection as a form under its key; an answer of the wrong shape is
// refused with a clear error and changes nothing; the right one, sent
// with tasks/update, selects the option and tasks/get finally answers
// completed with the plan's result.
func TestMCPTasksExtensionDrivesAPlan(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	const token = "mcp-ext-token-0123456789abcdef"
	tokens := tokensFile(t, token+" ext-host")
	url := startServe(t, ctx, pw, tokens) + "/mcp"

	var created extTask
	mcpRPC(t, ctx, url, token, "tools/call", map[string]any{"name": mcpserver.ToolStart,
		"arguments": map[string]any{"goal": "Add a health check endpoint", "template": "feature",
			"selection": map[string]any{"mode": "manual"}}, "_meta": extMeta}, &created)
	require.Equal(t, "task", created.ResultType)
	require.NotEmpty(t, created.TaskID)
	assert.Equal(t, mcpserver.TaskWorking, created.Status)
	id := created.TaskID

	var waiting extTask
	require.Eventually(t, func() bool {
		waiting = extGet(t, ctx, url, token, id)
		return waiting.Status == mcpserver.TaskInputRequired && len(waiting.InputRequests) > 0
	}, loadedWait, 200*time.Millisecond, "the plan waits for a selection")
	var key string
	for k := range waiting.InputRequests {
		key = k
	}
	require.True(t, strings.HasPrefix(key, "selection-"), key)
	req := waiting.InputRequests[key]
	assert.Equal(t, "elicitation/create", req.Method)
	assert.Equal(t, "form", req.Params.Mode)
	option := req.Params.RequestedSchema.Properties.OptionID.Default
	require.NotEmpty(t, option, "the form proposes the recommended option")

	update := func(content map[string]any) []byte {
		return mcpPost(t, ctx, url, token, mcpserver.MethodTasksUpdate, map[string]any{"taskId": id, "_meta": extMeta,
			"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": content}}})
	}
	var refused struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(update(map[string]any{"optionId": 42}), &refused))
	assert.Equal(t, -32602, refused.Error.Code)
	assert.Contains(t, refused.Error.Message, `"optionId": want a string`)
	still := extGet(t, ctx, url, token, id)
	assert.Equal(t, mcpserver.TaskInputRequired, still.Status, "a refused answer changes nothing")
	assert.Contains(t, still.InputRequests, key, "and is asked again under the same key")

	var ack map[string]any
	require.NoError(t, json.Unmarshal(update(map[string]any{"optionId": option}), &struct {
		Result *map[string]any `json:"result"`
	}{&ack}))
	assert.Equal(t, map[string]any{"resultType": "complete"}, ack)

	var done extTask
	require.Eventually(t, func() bool {
		done = extGet(t, ctx, url, token, id)
		return done.Status == mcpserver.TaskCompleted || done.Status == mcpserver.TaskFailed
	}, loadedWait, 300*time.Millisecond, "the plan ends")
	require.Equal(t, mcpserver.TaskCompleted, done.Status, done.StatusMessage)
	require.NotNil(t, done.Result)
	assert.False(t, done.Result.IsError)
	assert.Equal(t, signals.StatusCompleted, done.Result.StructuredContent.Result.Status, done.Result.StructuredContent.Result.Error)
	assert.Equal(t, option, done.Result.StructuredContent.Result.SelectedOptionID, "the option answered is the one selected")
}

// sseHeard keeps what the server streamed to a client, and closes seen
// once it holds want.
type sseHeard struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
}

func (h *sseHeard) has(s string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return bytes.Contains(h.buf.Bytes(), []byte(s))
}

// teeBody copies what a response body reads into heard.
type teeBody struct {
	io.ReadCloser
	h *sseHeard
}

func (b teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.mu.Lock()
	b.h.buf.Write(p[:n])
	b.h.mu.Unlock()
	if b.h.has(b.h.want) {
		b.h.once.Do(func() { close(b.h.seen) })
	}
	return n, err
}

// listening sends a bearer token and keeps every response's body.
type listening struct {
	withBearer
	h *sseHeard
}

func (l listening) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.withBearer.RoundTrip(r)
	if err == nil {
		resp.Body = teeBody{resp.Body, l.h}
	}
	return resp, err
}

// TestMCPTaskStatusNotificationsOverHTTP: a 2025-11-25 client with a
// session, waiting on tasks/result for a plan that waits for a selection,
// is sent notifications/tasks/status on that call's stream, from the
// plan's event log, before it is asked for the option.
func TestMCPTaskStatusNotificationsOverHTTP(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	const token = "mcp-notify-token-0123456789abcdef"
	tokens := tokensFile(t, token+" notified-host")
	url := startServe(t, ctx, pw, tokens) + "/mcp"
	id := startTask(t, ctx, url, token).TaskID

	status := `"method":"` + mcpserver.MethodTaskStatus + `"`
	heard := &sseHeard{want: status, seen: make(chan struct{})}
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-notify", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			// The plan waits for this answer: the status it is in now
			// must have been told before it is given.
			select {
			case <-heard.seen:
			case <-ctx.Done():
			case <-time.After(loadedWait):
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"optionId": defaultOption(req)}}, nil
		}})
	require.NoError(t, sdk.AddSendingCustomMethod[*taskIDParams, *sdk.CallToolResult](client, mcpserver.MethodTasksResult))
	transport := &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: listening{withBearer{token: token}, heard}}, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer cs.Close()

	require.Eventually(t, func() bool {
		_, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, cs, mcpserver.MethodTasksResult, &taskIDParams{TaskID: id})
		if err != nil {
			t.Logf("tasks/result: %v", err)
		}
		return err == nil
	}, loadedWait, time.Second, "tasks/result answers once the plan ended")
	require.True(t, heard.has(status), "the session was told the task's status")
	assert.True(t, heard.has(`"taskId":"`+id+`"`))
	assert.True(t, heard.has(`"status":"input_required"`), "the status told is the plan's: it waited for a selection")
	assert.False(t, heard.has("planmode/carried"), "no carrier reaches the host")
}

// defaultOption is the option a selection form proposes.
func defaultOption(req *sdk.ElicitRequest) string {
	var schema struct {
		Properties struct {
			OptionID struct {
				Default string `json:"default"`
			} `json:"optionId"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(req.Params.RequestedSchema)
	_ = json.Unmarshal(b, &schema)
	return schema.Properties.OptionID.Default
}
