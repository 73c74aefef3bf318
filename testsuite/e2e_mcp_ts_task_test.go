package testsuite

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// taskResultAnswer is what tasks/result answers for a plan: the plan's
// Result, tied to its task.
type taskResultAnswer struct {
	Meta              map[string]map[string]string `json:"_meta"`
	IsError           bool                         `json:"isError"`
	StructuredContent taskOutcome                  `json:"structuredContent"`
}

// TestMCPTypeScriptTaskOutlivesItsWorkerAndServer has the TypeScript MCP
// SDK's client (testdata/mcp_task_client.mjs: StreamableHTTPClientTransport
// with a bearer token, form elicitation) drive a plan as a task on a
// `planmode serve` process, whose plans run on a worker process:
// plan_start as a task (callToolStream) answers the task, whose id is the
// plan's; tasks/get says input_required; tasks/result asks for the
// selection with a form tied to the task, and the client picks the form's
// default. Once the plan executes, the worker is killed with SIGKILL in
// the middle of a model call and another worker process takes over: the
// call runs again there, and the client's tasks/result answers completed
// with the plan's Result. Then the serve process is killed too, and
// another on a new port answers for the same task: completed, the same
// Result. Both servers refuse a request without a token (401) and one
// from a foreign Origin (403).
func TestMCPTypeScriptTaskOutlivesItsWorkerAndServer(t *testing.T) {
	node, _ := nodePackage(t, "@modelcontextprotocol/sdk")
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	isolate(t)
	rig := tsTaskRig{token: "mcp-ts-task-token-0123456789abcdef"}
	var workspace string
	rig.srv, rig.workerBin, rig.env, rig.queue, workspace = workerRig(t, map[string]string{
		config.KeyOfflineLatency: "1s", config.KeyStickyTimeout: "1s"})
	rig.planmode = buildProgram(t, "./starter")
	rig.tokens = tokensFile(t, rig.token+" ts-host")
	first := startWorkerProcess(t, rig.workerBin, rig.env)
	ctx, cancel := testContext(t)
	defer cancel()
	serve := rig.serve(t)
	assertMCPGuards(t, ctx, serve.url+"/mcp")

	args, err := json.Marshal(map[string]any{"goal": "Add a health check endpoint", "template": "feature",
		"workspace": workspace, "selection": map[string]any{"mode": "manual"},
		"execution": map[string]any{"heartbeatTimeout": failoverHeartbeat.String()}})
	require.NoError(t, err)
	events, exited := startScript(t, ctx, node, filepath.Join(root, "testsuite", "testdata", "mcp_task_client.mjs"),
		filepath.Join(root, memoryServerDir), serve.url+"/mcp", rig.token, string(args))

	var created struct{ Task mcpserver.Task }
	nextEvent(t, ctx, events, "taskCreated").decode(t, &created)
	id := created.Task.TaskID
	assert.Equal(t, mcpserver.TaskWorking, created.Task.Status)
	pc := planclient.New(rig.srv.Client, planclient.WithTaskQueue(rig.queue), planclient.WithNamespace(rig.srv.Namespace))
	_, err = pc.Progress(ctx, id)
	require.NoError(t, err, "the task id is the plan's id")
	awaitTaskStatus(t, ctx, events, mcpserver.TaskInputRequired)
	chosen := awaitSelectionForm(t, ctx, events, id)

	inFlight := awaitRunningActivity(ctx, t, pc, id)
	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	desc, err := rig.srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(),
		"the plan was caught executing")
	second := startWorkerProcess(t, rig.workerBin, rig.env)

	var got struct{ Result taskResultAnswer }
	nextEvent(t, ctx, events, "result").decode(t, &got)
	require.NoError(t, <-exited, "the client ends cleanly")
	assert.False(t, got.Result.IsError)
	assert.Equal(t, id, got.Result.Meta["io.modelcontextprotocol/related-task"]["taskId"])
	res := got.Result.StructuredContent.Result
	require.Equal(t, signals.StatusCompleted, res.Status, "%s\nworker output:\n%s", res.Error, second.out)
	assert.Equal(t, chosen, res.SelectedOptionID, "the plan ran the option the person chose")
	// No bound on how soon: starting the new worker process takes longer
	// than that on a loaded machine.
	assertFailedOver(ctx, t, rig.srv, id, inFlight, time.Time{})

	t.Run("a second server answers for the task", func(t *testing.T) {
		serve.kill()
		require.True(t, errKilled(serve.err), "the first server died of SIGKILL: %v", serve.err)
		again := rig.serve(t)
		require.NotEqual(t, serve.url, again.url, "another server, on another port")
		assertMCPGuards(t, ctx, again.url+"/mcp")
		assertTaskAnswered(t, ctx, again.url+"/mcp", rig.token, id, res)
	})
}

// tsTaskRig is what TestMCPTypeScriptTaskOutlivesItsWorkerAndServer
// runs: the dev server and a task queue, the worker binary and its
// environment, the planmode binary, and the token serve takes.
type tsTaskRig struct {
	srv                        *devserver.DevServer
	queue, workerBin, planmode string
	env                        []string
	token, tokens              string
}

// serve starts a `planmode serve` process of the rig.
func (r tsTaskRig) serve(t *testing.T) *serveProcess {
	t.Helper()
	return startServeProcess(t, r.planmode, r.srv.Address(), r.srv.Namespace, r.queue, r.tokens)
}

// awaitSelectionForm reads the script's events until it was asked for
// plan id's selection, checks the form and the answer, and returns the
// option chosen: the form's default.
func awaitSelectionForm(t *testing.T, ctx context.Context, events <-chan scriptEvent, id string) string {
	t.Helper()
	var asked struct {
		RequestedSchema struct {
			Properties struct {
				OptionID struct {
					Default string `json:"default"`
				} `json:"optionId"`
			} `json:"properties"`
		} `json:"requestedSchema"`
		Meta   map[string]map[string]string `json:"meta"`
		Answer struct {
			Content map[string]string `json:"content"`
		} `json:"answer"`
	}
	nextEvent(t, ctx, events, "elicit").decode(t, &asked)
	assert.Equal(t, id, asked.Meta["io.modelcontextprotocol/related-task"]["taskId"], "the form is tied to the task")
	chosen := asked.RequestedSchema.Properties.OptionID.Default
	require.NotEmpty(t, chosen, "the form offers the recommended option as its default")
	assert.Equal(t, chosen, asked.Answer.Content["optionId"])
	return chosen
}

// assertTaskAnswered checks that /mcp at url answers task id with token:
// tasks/get (the go-sdk client) says completed, and tasks/result answers
// res, the Result the first server answered.
func assertTaskAnswered(t *testing.T, ctx context.Context, url, token, id string, res signals.Result) {
	t.Helper()
	cs := connectGoClient(t, ctx, url, token)
	task, err := sdk.CallCustomMethod[*taskIDParams, *taskGot](ctx, cs, mcpserver.MethodTasksGet, &taskIDParams{TaskID: id})
	require.NoError(t, err)
	assert.Equal(t, id, task.TaskID)
	assert.Equal(t, mcpserver.TaskCompleted, task.Status)
	var after taskResultAnswer
	mcpRPC(t, ctx, url, token, mcpserver.MethodTasksResult, map[string]any{"taskId": id}, &after)
	assert.False(t, after.IsError)
	assert.Equal(t, id, after.Meta["io.modelcontextprotocol/related-task"]["taskId"])
	assert.Equal(t, res.Status, after.StructuredContent.Result.Status)
	assert.Equal(t, res.Summary, after.StructuredContent.Result.Summary, "the same Result")
	assert.Equal(t, res.SelectedOptionID, after.StructuredContent.Result.SelectedOptionID)
}

// awaitTaskStatus reads the script's events until tasks/get answered
// status.
func awaitTaskStatus(t *testing.T, ctx context.Context, events <-chan scriptEvent, status mcpserver.TaskStatus) {
	t.Helper()
	for {
		var seen struct{ Task mcpserver.Task }
		nextEvent(t, ctx, events, "taskStatus").decode(t, &seen)
		require.NotContains(t, []mcpserver.TaskStatus{mcpserver.TaskCompleted, mcpserver.TaskFailed, mcpserver.TaskCancelled},
			seen.Task.Status, "the task ended before it was %s: %s", status, seen.Task.StatusMessage)
		if seen.Task.Status == status {
			return
		}
	}
}

// assertMCPGuards checks that /mcp at url refuses a request without a
// token (401) and one from a browser's foreign origin, token or not
// (403).
func assertMCPGuards(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	assert.Equal(t, http.StatusUnauthorized, httpStatus(t, ctx, url, nil), "no token")
	assert.Equal(t, http.StatusForbidden, httpStatus(t, ctx, url, map[string]string{
		"Authorization": "Bearer mcp-ts-task-token-0123456789abcdef", "Origin": "https://evil.example.com"}),
		"a foreign origin")
}

// connectGoClient connects the go-sdk client to url with token, as a host
// that does not elicit (so without a session), for tasks/get and
// tasks/result.
func connectGoClient(t *testing.T, ctx context.Context, url, token string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-second-server", Version: "v0"}, nil)
	require.NoError(t, sdk.AddSendingCustomMethod[*taskIDParams, *taskGot](client, mcpserver.MethodTasksGet))
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: withBearer{token: token}}, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
