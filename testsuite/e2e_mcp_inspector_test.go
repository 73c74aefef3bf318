package testsuite

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPInspectorListsTheTools runs the MCP Inspector's CLI
// (@modelcontextprotocol/inspector-cli, --cli --method tools/list) against
// the planmode binary's mcp command over stdio, and against planmode
// serve's /mcp over Streamable HTTP with a bearer token in --header: both
// list the 17 tools. Without the token the inspector fails to connect.
// Without node or the inspector (make deps installs it) the test skips.
func TestMCPInspectorListsTheTools(t *testing.T) {
	node, dir := nodePackage(t, "@modelcontextprotocol/inspector-cli")
	isolate(t)
	pw := startPlanWorker(t)
	bin := buildProgram(t, "./starter")
	ctx, cancel := testContext(t)
	defer cancel()
	inspector := func(args ...string) ([]byte, error) {
		return runInspector(t, ctx, node, filepath.Join(dir, "build", "cli.js"), args...)
	}

	out, err := inspector("--cli", bin, "mcp", "--address", pw.srv.Address(), "--namespace", pw.srv.Namespace,
		"--task-queue", pw.queue, "--method", "tools/list")
	require.NoError(t, err, "%s", out)
	assert.ElementsMatch(t, mcpToolNames, inspectedTools(t, out), "over stdio")

	const token = "mcp-inspector-token-0123456789abcdef"
	url := startServe(t, ctx, pw, tokensFile(t, token+" inspector")) + "/mcp"
	out, err = inspector("--cli", url, "--transport", "http", "--header", "Authorization: Bearer "+token,
		"--method", "tools/list")
	require.NoError(t, err, "%s", out)
	assert.ElementsMatch(t, mcpToolNames, inspectedTools(t, out), "over HTTP")

	out, err = inspector("--cli", url, "--transport", "http", "--method", "tools/list")
	assert.Error(t, err, "without a token the inspector is refused: %s", out)
}

// runInspector runs the inspector's cli.js with args and returns its
// standard output, or its error with its standard error. The inspector
// reads its own package.json for its client's name with a path relative
// to the current folder ("../package.json"), so it runs in a folder whose
// parent has one.
func runInspector(t *testing.T, ctx context.Context, node, cli string, args ...string) ([]byte, error) {
	t.Helper()
	parent := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(parent, "package.json"), []byte("{}\n"), 0o600))
	cwd := filepath.Join(parent, "run")
	require.NoError(t, os.Mkdir(cwd, 0o700))
	cmd := exec.CommandContext(ctx, node, append([]string{cli}, args...)...)
	cmd.Dir = cwd
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return append(out, ee.Stderr...), err
	}
	return out, err
}

// inspectedTools returns the tool names of the inspector's tools/list
// JSON.
func inspectedTools(t *testing.T, out []byte) []string {
	t.Helper()
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(out, &list), string(out))
	names := make([]string, 0, len(list.Tools))
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}
