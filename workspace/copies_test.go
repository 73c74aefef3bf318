package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSweepCopiesRemovesOnlyOldCopies(t *testing.T) {
	f, _ := newFiles(t)
	old, fresh := f.CopyDir(owner, "s1"), f.CopyDir(owner, "s2")
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("x"), 0o644))
	for _, d := range []string{old, fresh} {
		require.NoError(t, os.MkdirAll(d, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(d, "a.txt"), []byte("a"), 0o644))
	}
	require.NoError(t, os.Symlink(outside, filepath.Join(old, "out")))
	then := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(old, then, then))

	n, err := f.SweepCopies(time.Now(), 24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoDirExists(t, old)
	assert.DirExists(t, fresh)
	assert.FileExists(t, filepath.Join(outside, "keep.txt"), "a link in a copy is removed, not followed")
}
