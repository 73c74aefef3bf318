package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planmode/planmode/blobstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failBlobs is a store whose file blobs cannot be read: down for them
// only, so that the manifest loads and the fetch fails.
type failBlobs struct{ blobstore.Store }

func (s failBlobs) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if strings.HasPrefix(key, blobsPrefix) {
		return nil, fmt.Errorf("get %s: connection refused: %w", key, blobstore.ErrUnavailable)
	}
	return s.Store.Get(ctx, key)
}

// editedFixture records the fixture, then edits and adds files, so that a
// sync back to the record has blobs to fetch.
func editedFixture(t *testing.T, f *Files) (string, string) {
	t.Helper()
	ws := filesFixture(t)
	rec := record(t, f, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/a.go"), []byte("edited\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("new\n"), 0o644))
	return ws, rec.ID
}

func TestSyncOfACorruptBlobTouchesNothing(t *testing.T) {
	f, mem := newFiles(t)
	ws, id := editedFixture(t, f)
	mem.Corrupt(blobKey(hashOf([]byte("package a\n"))), []byte("package evil\n"))
	before := treeState(t, ws)

	_, err := f.Sync(context.Background(), SyncRequest{Dir: ws, Owner: owner, ID: id})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Equal(t, before, treeState(t, ws), "nothing in the folder changed")
}

func TestSyncWithTheStoreDownTouchesNothing(t *testing.T) {
	f, _ := newFiles(t)
	ws, id := editedFixture(t, f)
	before := treeState(t, ws)
	f.Store = failBlobs{f.Store}

	_, err := f.Sync(context.Background(), SyncRequest{Dir: ws, Owner: owner, ID: id})
	require.ErrorIs(t, err, blobstore.ErrUnavailable)
	assert.Equal(t, before, treeState(t, ws), "nothing in the folder changed")

	mem := blobstore.NewMemory()
	down := &Files{Store: mem, StateDir: f.StateDir}
	mem.SetFail(fmt.Errorf("dial: %w", blobstore.ErrUnavailable))
	_, err = down.Sync(context.Background(), SyncRequest{Dir: ws, Owner: owner, ID: id})
	require.ErrorIs(t, err, blobstore.ErrUnavailable)
	assert.Equal(t, before, treeState(t, ws))
}

func TestSyncNeverWritesThroughAFolderSwappedForASymlinkOutside(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	before := treeState(t, ws)
	rec := record(t, f, ws)
	outside := outsideDir(t, map[string]string{"a.go": "outside\n"})
	outsideBefore := treeState(t, outside)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/a.go"), []byte("edited\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "pkg/a/a_test.go")))

	onEntry(t, "restore", "pkg/a/a.go", func() {
		require.NoError(t, os.Rename(filepath.Join(ws, "pkg/a"), filepath.Join(ws, "pkg/moved")))
		require.NoError(t, os.Symlink(outside, filepath.Join(ws, "pkg/a")))
	})
	_, err := f.Sync(ctx, SyncRequest{Dir: ws, Owner: owner, ID: rec.ID})
	require.Error(t, err, "the write through the swapped folder fails")
	assert.Equal(t, outsideBefore, treeState(t, outside), "nothing outside is written")

	testHook = nil
	_, err = f.Sync(ctx, SyncRequest{Dir: ws, Owner: owner, ID: rec.ID})
	require.NoError(t, err, "a retry puts the folder back")
	assert.Equal(t, before, treeState(t, ws))
	assert.Equal(t, outsideBefore, treeState(t, outside))
}

func TestSyncNeverRemovesThroughAFolderSwappedForASymlinkOutside(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	rec := record(t, f, ws)
	outside := outsideDir(t, map[string]string{"extra.txt": "outside\n"})
	outsideBefore := treeState(t, outside)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/extra.txt"), []byte("new\n"), 0o644))

	onEntry(t, "remove", "pkg/a/extra.txt", func() {
		require.NoError(t, os.Rename(filepath.Join(ws, "pkg/a"), filepath.Join(ws, "pkg/moved")))
		require.NoError(t, os.Symlink(outside, filepath.Join(ws, "pkg/a")))
	})
	_, err := f.Sync(ctx, SyncRequest{Dir: ws, Owner: owner, ID: rec.ID})
	require.Error(t, err)
	assert.Equal(t, outsideBefore, treeState(t, outside), "nothing outside is removed")
}

// putRawManifest stores data as a manifest under its hash, as a hostile
// or broken writer of the store could.
func putRawManifest(t *testing.T, s blobstore.Store, data string) string {
	t.Helper()
	id := hashOf([]byte(data))
	require.NoError(t, s.Put(context.Background(), manifestKey(id), bytes.NewReader([]byte(data)), int64(len(data))))
	return id
}

func TestLoadRefusesManifestsThatLeadOutside(t *testing.T) {
	hash := strings.Repeat("0", 64)
	file := func(p string) string {
		return fmt.Sprintf(`{"p":%q,"k":"f","m":420,"s":1,"h":%q}`, p, hash)
	}
	cases := map[string]struct{ entries, msg string }{
		"dot-dot":        {file("../escape"), "not a clean path"},
		"inner dot-dot":  {`{"p":"a","k":"d","m":493},` + file("a/../../x"), "not a clean path"},
		"absolute":       {file("/etc/passwd"), "not a clean path"},
		"link out":       {`{"p":"l","k":"l","t":"/etc/passwd"}`, "lead outside"},
		"link climbing":  {`{"p":"a","k":"d","m":493},{"p":"a/l","k":"l","t":"../../x"}`, "lead outside"},
		"no parent":      {file("a/b"), "lies in no folder"},
		"file as parent": {file("a") + `,` + file("a/b"), "lies in no folder"},
		"unsorted":       {file("b") + `,` + file("a"), "out of order"},
		"repeated":       {file("a") + `,` + file("a"), "out of order"},
		"bad kind":       {`{"p":"a","k":"x"}`, "unknown kind"},
		"bad hash":       {`{"p":"a","k":"f","m":420,"s":1,"h":"abc"}`, "64-hex hash"},
		"backslash":      {file(`a\b`), "backslash"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, mem := newFiles(t)
			id := putRawManifest(t, mem, `{"v":1,"owner":"shop","entries":[`+c.entries+`]}`)
			_, err := f.Load(context.Background(), id)
			requireRefusal(t, err, ErrSnapshot, c.msg)
			dir := t.TempDir()
			_, err = f.Sync(context.Background(), SyncRequest{Dir: dir, Owner: owner, ID: id})
			requireRefusal(t, err, ErrSnapshot, c.msg)
			assert.Empty(t, treeState(t, dir))
		})
	}
}

func TestLoadDetectsACorruptManifest(t *testing.T) {
	f, mem := newFiles(t)
	rec := record(t, f, filesFixture(t))
	mem.Corrupt(manifestKey(rec.ID), []byte(`{"v":1,"owner":"shop","entries":[]}`))
	_, err := f.Load(context.Background(), rec.ID)
	require.ErrorIs(t, err, ErrCorrupt)
	var refusal *Refusal
	assert.False(t, errors.As(err, &refusal), "corruption is no refusal: an operator must look")
}
