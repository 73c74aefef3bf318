package testsuite

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/mcpserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// tsSDKPackage is the TypeScript MCP SDK's package under memoryServerDir,
// which make deps installs at a pinned version.
const tsSDKPackage = "node_modules/@modelcontextprotocol/sdk/package.json"

// TestMCPTypeScriptClientOverStdio has the TypeScript MCP SDK's client
// (testdata/mcp_client.mjs, StdioClientTransport) start the planmode
// binary's mcp command against the dev server: it lists the 17 tools and
// plan_status answers the plan the test ran to completion. Without node or
// the SDK (make deps installs it) the test skips.
func TestMCPTypeScriptClientOverStdio(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is missing: the TypeScript MCP SDK's client needs it (make deps installs the SDK with npm)")
	}
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	sdkDir := filepath.Join(root, memoryServerDir)
	if _, err := os.Stat(filepath.Join(sdkDir, tsSDKPackage)); err != nil {
		t.Skip("the TypeScript MCP SDK is not installed in " + memoryServerDir + ": run make deps")
	}
	script := filepath.Join(root, "testsuite", "testdata", "mcp_client.mjs")
	bin := buildProgram(t, "./starter")

	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-mcp-ts-" + pw.queue
	_, err = pc.Start(ctx, id, signals.StartRequest{Goal: "Add a health check endpoint", Workspace: pw.workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	cmd := exec.CommandContext(ctx, node, script, sdkDir, id, bin, "mcp",
		"--address", pw.srv.Address(), "--namespace", pw.srv.Namespace, "--task-queue", pw.queue)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), config.ConfigEnv+"=")
	var stderr []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "the client: %s", stderr)

	var got struct {
		Tools  []string `json:"tools"`
		Status struct {
			Standing planclient.Standing `json:"standing"`
		} `json:"status"`
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	assert.ElementsMatch(t, []string{mcpserver.ToolStart, mcpserver.ToolStatus, mcpserver.ToolOptions,
		mcpserver.ToolSelect, mcpserver.ToolRefine, mcpserver.ToolAnswer, mcpserver.ToolConfirmSkip,
		mcpserver.ToolApprove, mcpserver.ToolDeny, mcpserver.ToolRaiseBudget, mcpserver.ToolEdit,
		mcpserver.ToolControl, mcpserver.ToolResult, mcpserver.ToolList, mcpserver.ToolApprovals,
		mcpserver.ToolRollback, mcpserver.ToolFork}, got.Tools)
	assert.False(t, got.IsError, string(out))
	assert.Equal(t, id, got.Status.Standing.WorkflowID)
	assert.Equal(t, "Completed", got.Status.Standing.Status)
}
