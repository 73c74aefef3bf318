// Package testkit holds helpers that tests of several packages share: a
// workspace written from a map of files. Only tests import it (the layout
// test keeps it so).
package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Workspace returns a real (symlink-free) temporary directory holding
// files, named by slash-separated paths relative to it.
func Workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}
