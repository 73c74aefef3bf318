package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// memoryServerDir is where the project's setup (make deps) installs the
// reference MCP servers, from the repository root.
const memoryServerDir = ".cache/mcp"

// memoryServerScript is the reference server @modelcontextprotocol/server-memory
// under memoryServerDir.
const memoryServerScript = "node_modules/@modelcontextprotocol/server-memory/dist/index.js"

// memoryConfig writes a worker configuration file whose one MCP server is
// the reference memory server, run by node over stdio in the command
// sandbox, keeping its graph in its own folder under cache (the worker's
// XDG_CACHE_HOME). It returns the file's path.
func memoryConfig(t *testing.T, cache string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node runs the reference MCP server (make deps installs both)")
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	// The sandbox shows real paths: a .cache that links elsewhere is
	// shown where it leads.
	dir, err := filepath.EvalSymlinks(filepath.Join(root, memoryServerDir))
	require.NoError(t, err, "the reference MCP server is not installed: run make deps")
	script := filepath.Join(dir, memoryServerScript)
	require.FileExists(t, script, "the reference MCP server is not installed: run make deps")
	memory := filepath.Join(cache, "planmode", "mcp", "memory", "memory.jsonl")
	text := fmt.Sprintf(`mcp:
  servers:
    memory:
      command: %q
      args: [%q]
      readOnlyPaths: [%q]
      env: {MEMORY_FILE_PATH: %q}
      timeout: 30s
`, node, script, dir, memory)
	path := filepath.Join(t.TempDir(), "planmode.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestMCPReferenceServerCallGatedThenReadAllowed runs the published
// reference memory server over stdio in the sandbox of a worker process
// configured by file. A plan's tool step creates an entity with
// mcp__memory__create_entities, which has no readOnlyHint and so asks by
// default; once approved, a second step reads the graph with
// mcp__memory__read_graph, read-only and so allowed without asking, and
// gets the entity back.
func TestMCPReferenceServerCallGatedThenReadAllowed(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, nil)
	cache := t.TempDir()
	env = append(env, "XDG_CACHE_HOME="+cache) // the last value of a variable wins
	wp := startWorkerProcess(t, bin, env, "--"+config.FlagConfig, memoryConfig(t, cache))
	require.Regexp(t, `mcpTools=[1-9]`, wp.out.String(), "the worker connected the memory server and listed its tools")

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-mcp-memory-" + queue
	create := toolStep("create", "mcp__memory__create_entities", map[string]any{"entities": []any{map[string]any{
		"name": "planmode", "entityType": "project", "observations": []any{"runs plans durably"}}}})
	read := toolStep("read", "mcp__memory__read_graph", map[string]any{})
	read.DependsOn = []string{"create"}
	_, err := pc.Start(ctx, id, gatedRequest("Remember what planmode is", workspace, signals.ApprovalPolicy{}, create, read))
	require.NoError(t, err)

	a := awaitApproval(ctx, t, pc, id, "create", 1)
	assert.Equal(t, "mcp__memory__create_entities", a.Tool)
	assert.Contains(t, string(a.Args), "runs plans durably")
	_, err = approveAsShown(ctx, pc, id, a, approver, "remembering is fine")
	require.NoError(t, err, "worker output:\n%s", wp.out)

	// The read asks nobody: the plan runs to its end on its own.
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", wp.out)
	require.Equal(t, signals.StatusCompleted, res.Status, "%s\nworker output:\n%s", endState(ctx, pc, id), wp.out)
	assert.Equal(t, plan.StepCompleted, stepOf(t, res, "create").Status)
	r := stepOf(t, res, "read")
	assert.Equal(t, plan.StepCompleted, r.Status)
	require.NotNil(t, r.Result)
	assert.Contains(t, r.Result.Output, "runs plans durably", "the read sees what the approved call created")
	assert.FileExists(t, filepath.Join(cache, "planmode", "mcp", "memory", "memory.jsonl"),
		"the server kept its graph in its own folder")
}

// ticketServer is a Streamable HTTP MCP server on loopback with one tool,
// close_ticket, that declares no hints; calls counts its calls.
func ticketServer(t *testing.T) (url string, calls *atomic.Int64) {
	t.Helper()
	calls = &atomic.Int64{}
	s := sdk.NewServer(&sdk.Implementation{Name: "tickets", Version: "1"}, nil)
	type closeArgs struct {
		ID string `json:"id" jsonschema:"the ticket to close"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "close_ticket", Description: "Close a ticket."},
		func(ctx context.Context, req *sdk.CallToolRequest, in closeArgs) (*sdk.CallToolResult, any, error) {
			calls.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "closed " + in.ID}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", calls
}

// TestMCPHTTPCallDeniedNeverReachesTheServer configures a worker with a
// Streamable HTTP MCP server on loopback, listed in mcp.allowedURLs. A
// plan's call of its tool, which has no readOnlyHint, is gated; denied,
// the step fails with the reason and the server's handler never ran.
func TestMCPHTTPCallDeniedNeverReachesTheServer(t *testing.T) {
	t.Parallel()
	url, calls := ticketServer(t)
	r := startGateRig(t, func(c *config.Config) {
		c.MCP = config.MCP{AllowedURLs: []string{url}, Servers: map[string]config.MCPServer{"tickets": {URL: url}}}
	})
	require.NotNil(t, r.servers, "the worker connected its MCP server")
	_, ok := r.servers.Catalogue().Tool("mcp__tickets__close_ticket")
	require.True(t, ok, "the worker offers the server's tool: %+v", r.servers.Catalogue())

	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-mcp-http-" + r.queue
	_, err := r.pc.Start(ctx, id, gatedRequest("Close ticket T-1", r.workspace, signals.ApprovalPolicy{},
		toolStep("close", "mcp__tickets__close_ticket", map[string]any{"id": "T-1"})))
	require.NoError(t, err)

	a := awaitApproval(ctx, t, r.pc, id, "close", 1)
	assert.Equal(t, "mcp__tickets__close_ticket", a.Tool)
	assert.JSONEq(t, `{"id":"T-1"}`, string(a.Args))
	const reason = "T-1 is still being worked on"
	_, err = r.pc.Deny(ctx, id, signals.DenyToolCallRequest{RequestID: a.RequestID, Reason: reason, By: "bob"})
	require.NoError(t, err)
	s := awaitStepEnd(ctx, t, r.pc, id, "close")
	assert.Equal(t, plan.StepFailed, s.Status, stepText(s))
	assert.Contains(t, stepText(s), "denied")
	assert.Contains(t, stepText(s), reason)
	assert.Zero(t, calls.Load(), "the denied call never reached the server")
}
