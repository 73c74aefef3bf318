package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCachedContract(t *testing.T) {
	storeContract(t, func(t *testing.T) Store {
		return &Cached{Local: newTestDir(t), Remote: newFakeS3(t, "plans").open(t, "plans", Options{})}
	})
}

// blobKey is the key workspace gives content: its sha256.
func blobKey(data string) string {
	h := sha256.Sum256([]byte(data))
	x := hex.EncodeToString(h[:])
	return "blobs/" + x[:2] + "/" + x
}

func hasLocal(t *testing.T, c *Cached, key string) bool {
	_, err := os.Stat(filepath.Join(c.Local.Path(), key))
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	require.NoError(t, err)
	return true
}

func TestCachedGetKeepsACopyAndServesIt(t *testing.T) {
	remote := NewMemory()
	c := &Cached{Local: newTestDir(t), Remote: remote}
	key := blobKey("content")
	put(t, remote, key, "content")
	put(t, remote, "manifests/m1", "manifest")
	put(t, remote, "pins/p/m1", "plan")

	require.Equal(t, "content", get(t, c, key))
	require.Equal(t, "manifest", get(t, c, "manifests/m1"))
	require.Equal(t, "plan", get(t, c, "pins/p/m1"))
	require.True(t, hasLocal(t, c, key))
	require.True(t, hasLocal(t, c, "manifests/m1"))
	require.False(t, hasLocal(t, c, "pins/p/m1"), "a pin can change: not kept")

	remote.SetFail(errors.New("down"))
	require.Equal(t, "content", get(t, c, key), "served from the local copy")
	require.Equal(t, "manifest", get(t, c, "manifests/m1"))
	_, err := c.Get(context.Background(), "pins/p/m1")
	require.ErrorContains(t, err, "down")
}

func TestCachedKeepsNothingOfAFailedOrPartialRead(t *testing.T) {
	ctx := context.Background()
	remote := &failingGets{Memory: NewMemory()}
	c := &Cached{Local: newTestDir(t), Remote: remote}
	key := "manifests/m1" // names no hash: only the read's outcome counts
	put(t, remote, key, strings.Repeat("x", 100))

	remote.failAfter = 10
	rc, err := c.Get(ctx, key)
	require.NoError(t, err)
	_, err = io.ReadAll(rc)
	require.Error(t, err)
	require.NoError(t, rc.Close())
	require.False(t, hasLocal(t, c, key), "a failed read keeps nothing")

	remote.failAfter = 0
	rc, err = c.Get(ctx, key)
	require.NoError(t, err)
	_, err = io.ReadFull(rc, make([]byte, 10))
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.False(t, hasLocal(t, c, key), "a read closed halfway keeps nothing")
	require.Empty(t, tempFiles(t, c.Local.Path()))
}

// A remote blob that is not what its key names is handed on (verifying
// is the reader's job) but never kept, so it cannot outlive a repair.
func TestCachedKeepsNoCopyThatMismatchesItsKey(t *testing.T) {
	remote := NewMemory()
	c := &Cached{Local: newTestDir(t), Remote: remote}
	key := blobKey("good")
	put(t, remote, key, "good")
	remote.Corrupt(key, []byte("evil"))
	require.Equal(t, "evil", get(t, c, key))
	require.False(t, hasLocal(t, c, key))
}

func TestCachedPutWritesRemoteThenLocal(t *testing.T) {
	ctx := context.Background()
	remote := NewMemory()
	c := &Cached{Local: newTestDir(t), Remote: remote}
	key := blobKey("new")
	put(t, c, key, "new")
	require.Equal(t, "new", get(t, remote, key))
	require.True(t, hasLocal(t, c, key))

	put(t, c, "pins/p/m", "plan")
	require.False(t, hasLocal(t, c, "pins/p/m"))

	remote.SetFail(errors.New("down"))
	other := blobKey("other")
	require.ErrorContains(t, c.Put(ctx, other, strings.NewReader("other"), 5), "down")
	require.False(t, hasLocal(t, c, other), "no local copy of what the remote store lacks")
	remote.SetFail(nil)

	require.NoError(t, c.Delete(ctx, key))
	require.False(t, hasLocal(t, c, key), "delete drops the local copy")
	_, err := remote.Stat(ctx, key)
	require.ErrorIs(t, err, ErrNotFound)
	require.Empty(t, tempFiles(t, c.Local.Path()))
}

// failingGets is a Memory whose Get streams fail after failAfter bytes
// (when set).
type failingGets struct {
	*Memory
	failAfter int64
}

func (f *failingGets) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := f.Memory.Get(ctx, key)
	if err != nil || f.failAfter == 0 {
		return rc, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(rc, f.failAfter), errReader{}), rc}, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func tempFiles(t *testing.T, dir string) []string {
	var found []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.Contains(p, tempMark) {
			found = append(found, p)
		}
		return err
	}))
	return found
}

// A local copy changed on disk is caught when read, dropped, and the next
// read serves the remote blob again.
func TestCachedDropsALocalCopyThatNoLongerMatchesItsHash(t *testing.T) {
	ctx := context.Background()
	remote := NewMemory()
	local, err := NewDir(t.TempDir())
	require.NoError(t, err)
	c := &Cached{Local: local, Remote: remote}
	data := []byte("the blob")
	sum := sha256.Sum256(data)
	key := "blobs/" + hex.EncodeToString(sum[:1]) + "/" + hex.EncodeToString(sum[:])
	require.NoError(t, c.Put(ctx, key, bytes.NewReader(data), int64(len(data))))
	require.NoError(t, os.WriteFile(filepath.Join(local.Path(), filepath.FromSlash(key)), []byte("rotted!!"), 0o600))

	rc, err := c.Get(ctx, key)
	require.NoError(t, err)
	_, err = io.ReadAll(rc)
	rc.Close()
	require.ErrorIs(t, err, ErrUnavailable, "the rotten copy is refused")

	rc, err = c.Get(ctx, key)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	assert.Equal(t, data, got, "the remote blob, read again")
}
