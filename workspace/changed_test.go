package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ageTree sets the modification time of everything under dir to at.
func ageTree(t *testing.T, dir string, at time.Time) {
	t.Helper()
	require.NoError(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, at, at)
	}))
}

func TestChangedSinceListsFilesAndFoldersChangedAfter(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "shop")
	for _, f := range []string{"cart.go", "keep.go", "docs/a.md", "old/gone.txt", "src/x/y.go"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, f), []byte(f), 0o644))
	}
	ended := time.Now().Add(-time.Hour)
	ageTree(t, ws, ended.Add(-time.Minute))
	r := Root{Dir: root}

	paths, more, err := r.ChangedSince(context.Background(), "shop", ended, 0)
	require.NoError(t, err)
	assert.Empty(t, paths, "nothing changed after the end")
	assert.Zero(t, more)

	require.NoError(t, os.WriteFile(filepath.Join(ws, "cart.go"), []byte("edited"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "old/gone.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "src/x/new.go"), []byte("new"), 0o644))
	paths, more, err = r.ChangedSince(context.Background(), "shop", ended, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"cart.go", "old/", "src/x/new.go"}, paths,
		"a removal shows through its folder; a folder a listed file explains is left out")
	assert.Zero(t, more)

	paths, more, err = r.ChangedSince(context.Background(), "shop", ended, 2)
	require.NoError(t, err)
	assert.Len(t, paths, 2)
	assert.Equal(t, 1, more, "the rest is counted")
}

func TestChangedSinceNamesTheWorkspaceItselfForARemovalAtItsTop(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "shop")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.go"), []byte("a"), 0o644))
	ended := time.Now().Add(-time.Hour)
	ageTree(t, ws, ended.Add(-time.Minute))
	require.NoError(t, os.Remove(filepath.Join(ws, "a.go")))

	paths, _, err := Root{Dir: root}.ChangedSince(context.Background(), "shop", ended, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"./"}, paths)
}
