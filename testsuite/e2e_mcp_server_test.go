package testsuite

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/starter/cli"
)

// TestMCPServerDrivesAPlanOverHTTPAndStdio drives a plan as an agent's
// host would: over Streamable HTTP at planmode serve's /mcp with a bearer
// token it starts a plan with the feature template and auto selection,
// follows plan_status until the plan completed and reads plan_result and
// the plan's resources; then `planmode mcp` over its standard input and
// output lists its tools and answers plan_status of the same plan.
func TestMCPServerDrivesAPlanOverHTTPAndStdio(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	const token = "mcp-token-0123456789abcdef"
	tokens := tokensFile(t, token+" agent-host")
	url := startServe(t, ctx, pw, tokens)

	anon := &sdk.StreamableClientTransport{Endpoint: url + "/mcp", DisableStandaloneSSE: true}
	_, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, anon, nil)
	require.Error(t, err, "no token, no session")

	transport := &sdk.StreamableClientTransport{Endpoint: url + "/mcp",
		HTTPClient: &http.Client{Transport: withBearer{token: token}}, DisableStandaloneSSE: true}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, transport, nil)
	require.NoError(t, err)
	defer cs.Close()

	var started struct{ PlanID, RunID string }
	mcpCall(t, ctx, cs, mcpserver.ToolStart, map[string]any{"goal": "Add a health check endpoint", "template": "feature",
		"selection": map[string]any{"mode": "auto"}}, &started)
	require.NotEmpty(t, started.PlanID)

	var st struct {
		Standing planclient.Standing `json:"standing"`
	}
	require.Eventually(t, func() bool {
		mcpCall(t, ctx, cs, mcpserver.ToolStatus, map[string]any{"planId": started.PlanID}, &st)
		return st.Standing.Status != "Running"
	}, loadedWait, 200*time.Millisecond, "the plan ends")
	assert.Equal(t, "Completed", st.Standing.Status)

	var res signals.Result
	mcpCall(t, ctx, cs, mcpserver.ToolResult, map[string]any{"planId": started.PlanID}, &res)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	assert.NotEmpty(t, res.Plan.Steps)

	graph, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "plan://" + started.PlanID + "/graph"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(graph.Contents[0].Text, "flowchart"), graph.Contents[0].Text)
	details, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "plan://" + started.PlanID})
	require.NoError(t, err)
	assert.Contains(t, details.Contents[0].Text, started.PlanID)

	refusal, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserver.ToolSelect,
		Arguments: map[string]any{"planId": "no-such-plan-" + pw.queue, "rank": 1}})
	require.NoError(t, err, "a refusal is the tool's answer")
	assert.True(t, refusal.IsError)

	stdio := startMCPStdio(t, ctx, pw)
	tools, err := stdio.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.Contains(t, names, mcpserver.ToolStart)
	assert.Contains(t, names, mcpserver.ToolFork)
	var again struct {
		Standing planclient.Standing `json:"standing"`
	}
	mcpCall(t, ctx, stdio, mcpserver.ToolStatus, map[string]any{"planId": started.PlanID}, &again)
	assert.Equal(t, "Completed", again.Standing.Status)
}

// withBearer sends a bearer token with every request.
type withBearer struct{ token string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpCall calls tool with args, requires an answer that is not a
// refusal and decodes its structured content into out.
func mcpCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, tool)
	if res.IsError {
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		require.False(t, res.IsError, "%s refused: %s", tool, text.String())
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out), string(b))
}

// startMCPStdio runs `planmode mcp` in-process against pw's server, its
// standard input and output pipes, and returns a client session over
// them. When the test ends the client closes its end and the command must
// end cleanly.
func startMCPStdio(t *testing.T, ctx context.Context, pw *planWorker) *sdk.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(ctx, []string{"mcp", "--address", pw.srv.Address(), "--namespace", pw.srv.Namespace,
			"--task-queue", pw.queue}, inR, outW, &errOut)
		_ = outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e-stdio", Version: "v0"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = inW.Close()
		select {
		case c := <-code:
			assert.Equal(t, 0, c, "planmode mcp ends cleanly when its input ends: %s", errOut.String())
		case <-time.After(30 * time.Second):
			t.Error("planmode mcp did not end when its input ended")
		}
	})
	return cs
}
