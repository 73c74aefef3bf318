package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const owner = "shop"

// newFiles returns Files over a fresh Memory store, whose clock runs a
// second ahead so that files the test just wrote are not too recent for
// the stat cache.
func newFiles(t *testing.T) (*Files, *blobstore.Memory) {
	t.Helper()
	mem := blobstore.NewMemory()
	f := &Files{Store: mem, StateDir: filepath.Join(t.TempDir(), "state")}
	f.now = func() time.Time { return time.Now().Add(time.Second) }
	return f, mem
}

// filesFixture is snapshotFixture's workspace: a .git folder, nested
// files, an executable and a symlink.
func filesFixture(t *testing.T) string {
	t.Helper()
	_, ws := snapshotFixture(t)
	return ws
}

// record records dir as owner's workspace, for plan p.
func record(t *testing.T, f *Files, dir string) Recorded {
	t.Helper()
	rec, err := f.Record(context.Background(), RecordRequest{Dir: dir, Owner: owner, PlanID: "p"})
	require.NoError(t, err)
	return rec
}

// keys lists the store's keys under prefix.
func keys(t *testing.T, s blobstore.Store, prefix string) []string {
	t.Helper()
	var out []string
	require.NoError(t, s.List(context.Background(), prefix, func(i blobstore.Info) error {
		out = append(out, i.Key)
		return nil
	}))
	slices.Sort(out)
	return out
}

func TestRecordSyncRoundTrip(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	rec := record(t, f, ws)
	assert.True(t, ValidManifestID(rec.ID))
	assert.Equal(t, 11, rec.Files, "six files, a symlink and four folders")
	assert.Equal(t, 6, rec.Hashed)
	assert.Equal(t, 5, rec.NewBlobs, "two files share their content")
	assert.Empty(t, rec.Skipped)
	assert.Equal(t, []string{"pins/p/" + rec.ID}, keys(t, mem, "pins/"))

	copyDir := filepath.Join(t.TempDir(), "fresh")
	synced, err := f.Sync(ctx, SyncRequest{Dir: copyDir, Owner: owner, ID: rec.ID})
	require.NoError(t, err)
	assert.Equal(t, treeState(t, ws), treeState(t, copyDir))
	assert.Len(t, synced.Written, 11)
	assert.Equal(t, 5, synced.Fetched)
	assert.Empty(t, synced.Removed)

	again, err := f.Sync(ctx, SyncRequest{Dir: copyDir, Owner: owner, ID: rec.ID})
	require.NoError(t, err)
	assert.Empty(t, again.Written, "a folder that matches is not written to")
	assert.Zero(t, again.Fetched)

	same, err := f.Record(ctx, RecordRequest{Dir: copyDir, Owner: owner})
	require.NoError(t, err)
	assert.Equal(t, rec.ID, same.ID, "the same content gives the same id")
	assert.Zero(t, same.Hashed, "the sync filled the stat cache")
	assert.Zero(t, same.NewBlobs)
}

func TestRecordReadsOnlyChangedFiles(t *testing.T) {
	f, _ := newFiles(t)
	ws := filesFixture(t)
	first := record(t, f, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/a.go"), []byte("package a // edited\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("new\n"), 0o644))

	second := record(t, f, ws)
	assert.NotEqual(t, first.ID, second.ID)
	assert.Equal(t, 2, second.Hashed, "only the changed and the new file are read")
	assert.Equal(t, 2, second.NewBlobs)
	assert.Equal(t, int64(len("package a // edited\n")+len("new\n")), second.NewBytes)

	paths, more, err := f.Changed(context.Background(), ws, first.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"new.txt", "pkg/a/a.go"}, paths)
	assert.Zero(t, more)
}

func TestSyncPutsBackAndRemoves(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	before := treeState(t, ws)
	rec := record(t, f, ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte("package changed\n"), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(ws, "scripts/run.sh"), 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "pkg")))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "extra/deep"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "extra/deep/x.txt"), []byte("x\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "LINK.md")))
	require.NoError(t, os.Mkdir(filepath.Join(ws, "LINK.md"), 0o755))

	synced, err := f.Sync(ctx, SyncRequest{Dir: ws, Owner: owner, ID: rec.ID})
	require.NoError(t, err)
	assert.Equal(t, before, treeState(t, ws))
	assert.Equal(t, []string{"LINK.md", "extra", "extra/deep", "extra/deep/x.txt"}, synced.Removed)
	assert.Equal(t, []string{"LINK.md", "main.go", "pkg", "pkg/a", "pkg/a/a.go", "pkg/a/a_test.go",
		"scripts/run.sh"}, synced.Written)
}

func TestRecordAndSyncLeaveHardLinksFifosAndLinksOutAlone(t *testing.T) {
	f, mem := newFiles(t)
	ws := filesFixture(t)
	outside := outsideDir(t, nil)
	require.NoError(t, os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "pkg", "twin.txt")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "abs-link")))
	require.NoError(t, os.Symlink("../../outside", filepath.Join(ws, "pkg", "up-link")))

	rec := record(t, f, ws)
	skipped := map[string]string{}
	for _, s := range rec.Skipped {
		skipped[s.Path] = s.Reason
	}
	assert.Contains(t, skipped["pkg/twin.txt"], "hard links")
	assert.Contains(t, skipped["pipe"], "not a regular file")
	assert.Contains(t, skipped["abs-link"], "lead outside")
	assert.Contains(t, skipped["pkg/up-link"], "lead outside")
	assert.Len(t, skipped, 4)
	for _, k := range keys(t, mem, "blobs/") {
		data := getBlob(t, mem, k)
		assert.NotContains(t, data, canary, "the hard link's content is not stored")
	}

	before := treeState(t, ws)
	synced, err := f.Sync(context.Background(), SyncRequest{Dir: ws, Owner: owner, ID: rec.ID})
	require.NoError(t, err)
	assert.Empty(t, synced.Written)
	assert.Empty(t, synced.Removed)
	assert.Equal(t, before, treeState(t, ws))
}

// getBlob returns the content under key.
func getBlob(t *testing.T, s blobstore.Store, key string) string {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	require.NoError(t, err)
	defer rc.Close()
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(data)
}

func TestRecordRefusesAtTheLimits(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/f%d.txt", i%7, i)] = "x"
	}
	ws := testkit.Workspace(t, files)

	f, mem := newFiles(t)
	f.MaxFiles = 100
	_, err := f.Record(context.Background(), RecordRequest{Dir: ws, Owner: owner, PlanID: "p"})
	requireRefusal(t, err, ErrSnapshot, "more than 100 entries")
	assert.Contains(t, err.Error(), "workspace.maxFiles")
	assert.Contains(t, err.Error(), "counting stopped at 101")
	assert.Empty(t, keys(t, mem, ""), "nothing was stored: the walk stopped before hashing")

	f, _ = newFiles(t)
	f.MaxBytes = 200
	_, err = f.Record(context.Background(), RecordRequest{Dir: ws, Owner: owner})
	requireRefusal(t, err, ErrSnapshot, "workspace.snapshotLimit")
}

func TestRecordRefusesBadRequests(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := filesFixture(t)
	_, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: ""})
	requireRefusal(t, err, ErrSnapshot, "invalid workspace key")
	_, err = f.Record(ctx, RecordRequest{Dir: "relative/dir", Owner: owner})
	requireRefusal(t, err, ErrRejected, "not an absolute path")
	_, err = f.Record(ctx, RecordRequest{Dir: filepath.Join(ws, "missing"), Owner: owner})
	requireRefusal(t, err, ErrRejected, "does not exist")
	inWs := &Files{Store: f.Store, StateDir: filepath.Join(ws, ".state")}
	_, err = inWs.Record(ctx, RecordRequest{Dir: ws, Owner: owner})
	requireRefusal(t, err, ErrSnapshot, "overlaps the worker's state folder")
	_, err = f.Record(ctx, RecordRequest{Dir: filepath.Join(f.StateDir, statDir), Owner: owner})
	requireRefusal(t, err, ErrSnapshot, "overlaps the worker's state folder")

	// A step's copy lies in the state folder, and is recorded like any.
	copyDir := f.CopyDir(owner, "step-1")
	rec := record(t, f, ws)
	_, err = f.Sync(ctx, SyncRequest{Dir: copyDir, Owner: owner, ID: rec.ID})
	require.NoError(t, err)
	again, err := f.Record(ctx, RecordRequest{Dir: copyDir, Owner: owner})
	require.NoError(t, err)
	assert.Equal(t, rec.ID, again.ID)
}

func TestSyncRefusals(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	rec := record(t, f, filesFixture(t))
	dir := t.TempDir()
	missing := strings.Repeat("ab", 32)

	_, err := f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: missing})
	requireRefusal(t, err, ErrSnapshot, "manifest "+missing+" does not exist")
	assert.ErrorContains(t, err, "must share one workspace.store", "the likeliest cause is named")
	_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: "other", ID: rec.ID})
	requireRefusal(t, err, ErrSnapshot, "manifest "+rec.ID+" belongs to another workspace")
	_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: "../etc"})
	requireRefusal(t, err, ErrSnapshot, "not a manifest id")
	assert.Empty(t, treeState(t, dir), "a refused sync writes nothing")
}

func TestAtNamesTheLastManifestUntilAChangeBegins(t *testing.T) {
	ctx := context.Background()
	f := &Files{Store: blobstore.NewMemory(), StateDir: t.TempDir()}
	dir := t.TempDir()
	assert.Empty(t, f.At(dir), "a folder this worker never held")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	rec, err := f.Record(ctx, RecordRequest{Dir: dir, Owner: "o"})
	require.NoError(t, err)
	assert.Equal(t, rec.ID, f.At(dir))
	require.NoError(t, f.Begin(dir))
	assert.Empty(t, f.At(dir), "a change began: only a sync says what the folder holds")
	again, err := f.Record(ctx, RecordRequest{Dir: dir, Owner: "o"})
	require.NoError(t, err)
	assert.Equal(t, again.ID, f.At(dir), "a record ends the change")
	require.NoError(t, f.Begin(dir))
	_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: "o", ID: rec.ID})
	require.NoError(t, err)
	assert.Equal(t, rec.ID, f.At(dir), "so does a sync")
}
