package blobstore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func newTestDir(t *testing.T) *Dir {
	t.Helper()
	d, err := NewDir(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestDirContract(t *testing.T) {
	storeContract(t, func(t *testing.T) Store { return newTestDir(t) })
}

// A symbolic link planted in the folder (by anyone who can write there)
// must not lead the store to read, write or remove anything outside it.
func TestDirSymlinkCannotLeadOutside(t *testing.T) {
	ctx := context.Background()
	d := newTestDir(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("secret"), 0o600))
	require.NoError(t, os.Symlink(outside, filepath.Join(d.Path(), "blobs")))
	require.NoError(t, os.Symlink(secret, filepath.Join(d.Path(), "leak")))

	_, err := d.Get(ctx, "blobs/secret")
	require.Error(t, err)
	_, err = d.Get(ctx, "leak")
	require.Error(t, err)
	_, err = d.Stat(ctx, "blobs/secret")
	require.Error(t, err)

	require.Error(t, d.Put(ctx, "blobs/secret", strings.NewReader("owned"), 5))
	require.Error(t, d.Put(ctx, "blobs/aa/new", strings.NewReader("owned"), 5))

	require.Error(t, d.Delete(ctx, "blobs/secret"))

	got, err := os.ReadFile(secret)
	require.NoError(t, err)
	require.Equal(t, "secret", string(got))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written beside the secret")

	require.Empty(t, list(t, d, ""), "a link is no blob")
	// Putting over the planted link replaces the link, not its target.
	put(t, d, "leak", "mine")
	got, err = os.ReadFile(secret)
	require.NoError(t, err)
	require.Equal(t, "secret", string(got))
}

func TestNewDirWantsAbsolutePath(t *testing.T) {
	_, err := NewDir("relative/store")
	require.ErrorContains(t, err, "absolute")
}

func TestDirModes(t *testing.T) {
	d := newTestDir(t)
	put(t, d, "blobs/aa/1", "x")
	for name, want := range map[string]fs.FileMode{".": 0o700, "blobs": 0o700, "blobs/aa": 0o700, "blobs/aa/1": 0o600} {
		st, err := os.Stat(filepath.Join(d.Path(), name))
		require.NoError(t, err)
		require.Equal(t, want, st.Mode().Perm(), name)
	}
}

func TestDirDeleteDropsEmptyFolders(t *testing.T) {
	ctx := context.Background()
	d := newTestDir(t)
	put(t, d, "blobs/aa/1", "x")
	put(t, d, "blobs/bb/2", "y")
	require.NoError(t, d.Delete(ctx, "blobs/aa/1"))
	_, err := os.Stat(filepath.Join(d.Path(), "blobs/aa"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = os.Stat(filepath.Join(d.Path(), "blobs/bb/2"))
	require.NoError(t, err, "a folder still holding a blob stays")
	require.NoError(t, d.Delete(ctx, "blobs/bb/2"))
	entries, err := os.ReadDir(d.Path())
	require.NoError(t, err)
	require.Empty(t, entries)
}

// A Put in progress shows in List as nothing, and one that fails leaves
// no temporary file behind.
func TestDirTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	d := newTestDir(t)
	var during []string
	src := newCountingReader(1<<20, func() { during = list(t, d, "") })
	require.NoError(t, d.Put(ctx, "blobs/aa/1", src, src.size))
	require.Empty(t, during)

	require.Error(t, d.Put(ctx, "blobs/aa/2", strings.NewReader("abc"), 4))
	entries, err := os.ReadDir(filepath.Join(d.Path(), "blobs/aa"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "1", entries[0].Name())
}

// Put streams: by the time the source hands out its last chunk, nearly
// all of the blob is already on disk, not held in memory.
func TestDirPutStreams(t *testing.T) {
	d := newTestDir(t)
	var onDisk int64
	src := newCountingReader(20<<20, func() { onDisk = tempBytes(t, d.Path()) })
	require.NoError(t, d.Put(context.Background(), "blobs/big/one", src, src.size))
	require.Greater(t, onDisk, src.size-(1<<20))
}

// tempBytes adds up the sizes of the temporary files under dir.
func tempBytes(t *testing.T, dir string) int64 {
	var n int64
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !strings.Contains(e.Name(), tempMark) {
			return err
		}
		st, err := e.Info()
		n += st.Size()
		return err
	}))
	return n
}
