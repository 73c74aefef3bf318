package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
