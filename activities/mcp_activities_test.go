package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/outputs"
)

// mcpActivities returns activities whose MCP manager reaches one loopback
// Streamable HTTP server, "srv", with the tools of add and the call
// timeout given.
func mcpActivities(t *testing.T, timeout time.Duration, add func(*sdk.Server)) Set {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	add(s)
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(h.Close)
	m := mcp.Start(context.Background(), mcp.Config{AllowedURLs: []string{h.URL + "/"}, ConnectTimeout: 5 * time.Second,
		Servers: []mcp.Server{{Name: "srv", URL: h.URL + "/mcp", Timeout: timeout}}})
	t.Cleanup(func() { m.Close() })
	require.Empty(t, m.Catalogue().Problems)
	return worker{MCP: m, Outputs: outputs.New(t.TempDir()), ToolOutputLimit: 1000}.set()
}

// mcpTool adds a tool to s that answers with answer.
func mcpTool(s *sdk.Server, name string, ann *sdk.ToolAnnotations, answer func(context.Context) *sdk.CallToolResult) {
	s.AddTool(&sdk.Tool{Name: name, Annotations: ann, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return answer(ctx), nil
		})
}

func mcpText(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// hangUntil returns a tool answer that comes only once the call's ctx
// ends or release is closed. The server does not always see a call the
// client gave up on end (the cancellation is a notification that may be
// lost), and it closes a session only once its calls are done; tests
// close release before the server, so no call outlives them.
func hangUntil(release <-chan struct{}) func(context.Context) *sdk.CallToolResult {
	return func(ctx context.Context) *sdk.CallToolResult {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return mcpText("late")
	}
}

func TestListMCPToolsRecordsTheCatalogue(t *testing.T) {
	a := mcpActivities(t, 30*time.Second, func(s *sdk.Server) {
		mcpTool(s, "read_graph", &sdk.ToolAnnotations{ReadOnlyHint: true}, nil)
	})
	cat, err := a.ListMCPTools(context.Background())
	require.NoError(t, err)
	require.Len(t, cat.Tools, 1)
	assert.Equal(t, "mcp__srv__read_graph", cat.Tools[0].Name)
	assert.True(t, cat.Tools[0].ReadOnly)
	assert.NotEmpty(t, cat.Digest)

	none, err := worker{}.set().ListMCPTools(context.Background())
	require.NoError(t, err)
	assert.Empty(t, none.Tools)
}

func TestCallMCPToolBoundsOutputAndKeepsItWhole(t *testing.T) {
	long := strings.Repeat("0123456789", 1<<20) // 10 MB
	a := mcpActivities(t, 30*time.Second, func(s *sdk.Server) {
		mcpTool(s, "big", nil, func(context.Context) *sdk.CallToolResult {
			r := mcpText(long)
			r.StructuredContent = map[string]any{"rows": strings.Repeat("r", 2000)}
			return r
		})
		mcpTool(s, "fails", nil, func(context.Context) *sdk.CallToolResult {
			r := mcpText("ticket 7 does not exist")
			r.IsError = true
			return r
		})
	})
	a.Tools.HeartbeatInterval = 20 * time.Millisecond
	digest := a.MCP.Catalogue().Digest
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a.CallMCPTool)
	var mu sync.Mutex
	var beats []string
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var what string
		_ = details.Get(&what)
		mu.Lock()
		beats = append(beats, what)
		mu.Unlock()
	})
	val, err := env.ExecuteActivity(a.CallMCPTool, MCPCallInput{PlanID: "p", StepID: "s1", CallID: "c1",
		Name: "mcp__srv__big", CatalogueDigest: digest})
	require.NoError(t, err)
	var out MCPCallOutput
	require.NoError(t, val.Get(&out))
	assert.LessOrEqual(t, len(out.Output), 1000+200, "history holds a bounded head and tail")
	assert.True(t, out.OutputTruncated)
	require.NotEmpty(t, out.OutputRef)
	whole, err := os.ReadFile(out.OutputRef)
	require.NoError(t, err)
	assert.Equal(t, long, string(whole))
	assert.True(t, out.StructuredOmitted, "structured content over the limit stays out of history")
	assert.Nil(t, out.Structured)
	assert.NotEmpty(t, out.StructuredRef)
	mu.Lock()
	assert.Contains(t, beats, "waiting for MCP tool mcp__srv__big")
	mu.Unlock()

	out, err = a.CallMCPTool(context.Background(), MCPCallInput{Name: "mcp__srv__fails", CatalogueDigest: digest})
	require.NoError(t, err)
	assert.Equal(t, MCPCallOutput{Output: "ticket 7 does not exist", IsError: true}, out)
}

func TestCallMCPToolOutcomeUnknownIsRetriedOnlyWhenSafe(t *testing.T) {
	release := make(chan struct{})
	hang := hangUntil(release)
	a := mcpActivities(t, 200*time.Millisecond, func(s *sdk.Server) {
		mcpTool(s, "delete_ticket", nil, hang)
		mcpTool(s, "read_ticket", &sdk.ToolAnnotations{ReadOnlyHint: true}, hang)
		mcpTool(s, "set_label", &sdk.ToolAnnotations{IdempotentHint: true}, hang)
	})
	t.Cleanup(func() { close(release) })
	digest := a.MCP.Catalogue().Digest
	for name, retryable := range map[string]bool{"delete_ticket": false, "read_ticket": true, "set_label": true} {
		_, err := a.CallMCPTool(context.Background(), MCPCallInput{Name: "mcp__srv__" + name, CatalogueDigest: digest})
		app := appError(t, err)
		assert.Equal(t, ErrorTypeMCPOutcomeUnknown, app.Type(), name)
		assert.Equal(t, !retryable, app.NonRetryable(), name)
		var out MCPCallOutput
		require.NoError(t, app.Details(&out), name)
		assert.True(t, out.OutcomeUnknown, name)
		assert.Contains(t, out.Error, "no answer within 200ms", name)
	}
}

func TestCallMCPToolRefusesAChangedCatalogue(t *testing.T) {
	release := make(chan struct{})
	a := mcpActivities(t, 30*time.Second, func(s *sdk.Server) { mcpTool(s, "t", nil, hangUntil(release)) })
	t.Cleanup(func() { close(release) })
	_, err := a.CallMCPTool(context.Background(), MCPCallInput{Name: "mcp__srv__t", CatalogueDigest: "sha256:other"})
	app := appError(t, err)
	assert.Equal(t, ErrorTypeMCPCatalogueChanged, app.Type())
	assert.True(t, app.NonRetryable())

	_, err = a.CallMCPTool(context.Background(), MCPCallInput{Name: "mcp__srv__t"})
	assert.Equal(t, ErrorTypeMCPUnknownTool, appError(t, err).Type(), "a call must carry the digest")
	_, err = a.CallMCPTool(context.Background(), MCPCallInput{Name: "mcp__srv__none", CatalogueDigest: a.MCP.Catalogue().Digest})
	assert.Equal(t, ErrorTypeMCPUnknownTool, appError(t, err).Type())
}

func TestMCPCallErrorsByKind(t *testing.T) {
	tool := mcp.Tool{Name: "mcp__s__t"}
	for _, c := range []struct {
		err          error
		typ          string
		nonRetryable bool
	}{
		{fmt.Errorf("%w: server s: exited", mcp.ErrUnavailable), ErrorTypeMCPUnavailable, false},
		{fmt.Errorf("%w: server s offers other tools", mcp.ErrCatalogueChanged), ErrorTypeMCPCatalogueChanged, true},
		{fmt.Errorf("%w: crashed", mcp.ErrOutcomeUnknown), ErrorTypeMCPOutcomeUnknown, true},
	} {
		app := appError(t, mcpCallError(tool, c.err))
		assert.Equal(t, c.typ, app.Type())
		assert.Equal(t, c.nonRetryable, app.NonRetryable(), c.typ)
	}
	err := mcpCallError(tool, context.Canceled)
	assert.True(t, errors.Is(err, context.Canceled), "cancellation stays Temporal's")
}
