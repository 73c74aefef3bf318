package testsuite

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/signals"
)

// taskIDParams names the task of tasks/get and tasks/result.
type taskIDParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// taskGot is what tasks/get answers: the task.
type taskGot struct {
	sdk.ResultBase
	mcpserver.Task
}

// TestMCPTaskResultElicitsOverHTTP drives a plan as an MCP task over
// planmode serve's /mcp: plan_start as a task (manual selection, the
// feature template) is sent without a session, as any host sends it; then
// a go-sdk client that declares elicitation opens a session with the
// same token, follows tasks/get until the plan waits for a selection
// (input_required), and on tasks/result is asked for the option over the
// session: it picks the recommended one (the form's default) and gets the
// plan's completed result.
func TestMCPTaskResultElicitsOverHTTP(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	const token = "mcp-elicit-token-0123456789abcdef"
	tokens := tokensFile(t, token+" agent-host")
	url := startServe(t, ctx, pw, tokens) + "/mcp"

	id := startTask(t, ctx, url, token).TaskID

	var asked []string
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e-elicit", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			var schema struct {
				Properties struct {
					OptionID struct {
						Default string `json:"default"`
					} `json:"optionId"`
				} `json:"properties"`
			}
			b, err := json.Marshal(req.Params.RequestedSchema)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(b, &schema); err != nil {
				return nil, err
			}
			return &sdk.ElicitResult{Action: "accept",
				Content: map[string]any{"optionId": schema.Properties.OptionID.Default}}, nil
		}})
	require.NoError(t, sdk.AddSendingCustomMethod[*taskIDParams, *sdk.CallToolResult](client, mcpserver.MethodTasksResult))
	require.NoError(t, sdk.AddSendingCustomMethod[*taskIDParams, *taskGot](client, mcpserver.MethodTasksGet))
	transport := &sdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: withBearer{token: token}}, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	defer cs.Close()
	require.NotEmpty(t, cs.ID(), "a host that elicits has a session")

	require.Eventually(t, func() bool {
		got, err := sdk.CallCustomMethod[*taskIDParams, *taskGot](ctx, cs, mcpserver.MethodTasksGet, &taskIDParams{TaskID: id})
		require.NoError(t, err)
		return got.Status == mcpserver.TaskInputRequired
	}, loadedWait, 200*time.Millisecond, "the plan waits for a selection")

	var res *sdk.CallToolResult
	require.Eventually(t, func() bool {
		r, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, cs, mcpserver.MethodTasksResult,
			&taskIDParams{TaskID: id})
		if err != nil {
			t.Logf("tasks/result: %v", err)
			return false
		}
		res = r
		return true
	}, loadedWait, time.Second, "tasks/result answers once the plan ended")
	require.NotEmpty(t, asked, "the person was asked for the option over the session")
	assert.Contains(t, asked[0], "option")
	assert.False(t, res.IsError)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var outcome taskOutcome
	require.NoError(t, json.Unmarshal(b, &outcome), string(b))
	assert.Equal(t, signals.StatusCompleted, outcome.Result.Status, outcome.Result.Error)
}
