package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// newWorkspace returns a sandbox over a fresh directory holding files.
func newWorkspace(t *testing.T, files map[string]string) *Sandbox {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	sb, err := NewSandbox(dir)
	require.NoError(t, err)
	return sb
}

// call runs the named tool of reg in sb with JSON args.
func call(t *testing.T, reg *Registry, sb *Sandbox, name, args string) (Result, error) {
	t.Helper()
	tool, ok := reg.Get(name)
	require.True(t, ok, "tool %s", name)
	return tool.Run(context.Background(), Env{Root: sb}, json.RawMessage(args))
}

// requireToolError asserts err is a ToolError whose message holds want.
func requireToolError(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	require.True(t, IsToolError(err), "want a ToolError, got %T: %v", err, err)
	require.Contains(t, err.Error(), want)
}

// readFile returns a workspace file's content.
func readFile(t *testing.T, sb *Sandbox, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sb.Root(), filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(data)
}

// sandboxProblem is why no command sandbox works here; nil when one does.
var sandboxProblem = sync.OnceValue(func() error {
	_, err := DetectCommandSandbox(DefaultConfig())
	return err
})

// requireCommandSandbox skips a test that needs the command sandbox when
// none works here, outside CI; in CI (where scripts/install-deps.sh
// installs bubblewrap) it fails it.
func requireCommandSandbox(t *testing.T) {
	t.Helper()
	err := sandboxProblem()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "" {
		t.Skipf("no command sandbox here (scripts/install-deps.sh installs bubblewrap; CI runs this test): %v", err)
	}
	t.Fatalf("the command sandbox is required when CI is set: %v", err)
}

// testSandbox is the sandbox mode of tests about running commands rather
// than isolating them: auto when a sandbox works here, so that they run
// as a worker runs them, else none, so that they still run.
func testSandbox() SandboxMode {
	if sandboxProblem() != nil {
		return SandboxNone
	}
	return SandboxAuto
}
