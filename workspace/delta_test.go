package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/planmode/planmode/blobstore"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storedForm reads manifest id as the store keeps it, unresolved.
func storedForm(t *testing.T, f *Files, id string) stored {
	t.Helper()
	var s stored
	require.NoError(t, json.Unmarshal([]byte(getBlob(t, f.Store, manifestKey(id))), &s))
	return s
}

func TestCollectKeepsTheBaseOfAKeptDelta(t *testing.T) {
	f, mem, clock, ids := gcFixture(t)
	ctx := context.Background()
	// The workspace of a plan closed long ago, taken up by an open plan
	// on the same folder: its first record is a delta over the old one.
	ws := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "kept.txt"), []byte("only the old plan recorded me\n"), 0o644))
	old, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: owner, PlanID: "closed-old"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("the open plan's\n"), 0o644))
	fresh, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: owner, PlanID: "open"})
	require.NoError(t, err)
	require.Equal(t, old.ID, storedForm(t, f, fresh.ID).Base, "the open plan's manifest is a delta")

	*clock = clock.Add(2 * time.Hour)
	now := *clock
	state := func(_ context.Context, planID string) (bool, time.Time, error) {
		if planID == "open" {
			return true, time.Time{}, nil
		}
		return false, now.Add(-48 * time.Hour), nil
	}
	got, err := f.Collect(ctx, CollectRequest{Now: now, Retention: 24 * time.Hour, Grace: time.Hour, PlanState: state})
	require.NoError(t, err)
	assert.NotContains(t, got.Sample, manifestKey(old.ID), "the base of a kept delta stays")
	assert.Contains(t, keys(t, mem, manifestsPrefix), manifestKey(old.ID))
	assert.Contains(t, got.Sample, manifestKey(ids["closed-old"]), "an unreferenced old manifest still goes")

	dir := t.TempDir()
	_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: fresh.ID})
	require.NoError(t, err, "the delta and the blobs of its base are whole")
	assert.Equal(t, treeState(t, ws), treeState(t, dir))
}

// storedSize returns the bytes of manifest id as stored.
func storedSize(t *testing.T, s blobstore.Store, id string) int64 {
	t.Helper()
	i, err := s.Stat(context.Background(), manifestKey(id))
	require.NoError(t, err)
	return i.Size
}

func TestRecordStoresADeltaThatSyncsWhole(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	ws := fillWorkspace(t, t.TempDir(), 200, 200<<10)
	first := record(t, f, ws)
	assert.Empty(t, storedForm(t, f, first.ID).Base, "a folder recorded first is stored whole")

	stepChanges(t, ws, 1)
	require.NoError(t, os.Remove(filepath.Join(ws, "d003", "f0199.dat")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "d003", "new.txt"), []byte("new\n"), 0o644))
	second := record(t, f, ws)
	s := storedForm(t, f, second.ID)
	assert.Equal(t, deltaVersion, s.V)
	assert.Equal(t, first.ID, s.Base)
	assert.Equal(t, 1, s.Depth)
	assert.Equal(t, []string{"d000/f0000.dat", "d000/f0001.dat", "d000/f0002.dat", "d003/new.txt"},
		entryPaths(s.Entries), "only what changed is listed")
	assert.Equal(t, []string{"d003/f0199.dat"}, s.Removed)
	assert.Less(t, storedSize(t, mem, second.ID)*20, storedSize(t, mem, first.ID), "the delta is a small part")

	loaded, err := f.Load(ctx, second.ID)
	require.NoError(t, err)
	assert.Len(t, loaded.Entries, second.Files, "Load returns the whole manifest")
	fresh := &Files{Store: mem, StateDir: filepath.Join(t.TempDir(), "state")}
	dir := filepath.Join(t.TempDir(), "hydrated")
	_, err = fresh.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: second.ID})
	require.NoError(t, err)
	assert.Equal(t, treeState(t, ws), treeState(t, dir))

	manifests := keys(t, mem, manifestsPrefix)
	same := record(t, f, ws)
	assert.Equal(t, second.ID, same.ID, "a folder that holds what its base holds keeps its id")
	again, err := fresh.Record(ctx, RecordRequest{Dir: dir, Owner: owner})
	require.NoError(t, err)
	assert.Equal(t, second.ID, again.ID, "so does a folder synced to it")
	assert.Equal(t, manifests, keys(t, mem, manifestsPrefix), "and nothing new is stored")

	_, err = f.Sync(ctx, SyncRequest{Dir: ws, Owner: owner, ID: first.ID})
	require.NoError(t, err)
	back := record(t, f, ws)
	assert.Equal(t, first.ID, back.ID, "rolled back, the folder is at the first manifest again")
}

// entryPaths lists the paths of entries.
func entryPaths(entries []ManifestEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Path)
	}
	return out
}

func TestAChainOfRecordsStartsAgainWholeAtItsDepthLimit(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := fillWorkspace(t, t.TempDir(), 100, 100<<10)
	type step struct {
		id   string
		tree map[string]string
	}
	var steps []step
	var depths []int
	for i := range 20 {
		stepChanges(t, ws, i)
		rec := record(t, f, ws)
		steps = append(steps, step{rec.ID, treeState(t, ws)})
		depths = append(depths, storedForm(t, f, rec.ID).Depth)
	}
	// The first record is whole; so is the 18th, whose delta would lie
	// deeper than maxDepth.
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 1, 2}, depths)
	for i, s := range steps {
		dir := t.TempDir()
		_, err := f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: s.id})
		require.NoError(t, err)
		assert.Equal(t, s.tree, treeState(t, dir), "record %d", i)
	}
}

func TestRecordOverALostBaseStoresAWholeManifest(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	ws := fillWorkspace(t, t.TempDir(), 50, 50<<10)
	first := record(t, f, ws)
	stepChanges(t, ws, 1)
	second := record(t, f, ws)
	require.Equal(t, first.ID, storedForm(t, f, second.ID).Base)
	require.NoError(t, mem.Delete(ctx, manifestKey(first.ID)))

	_, err := f.Load(ctx, second.ID)
	requireRefusal(t, err, ErrSnapshot, "manifest "+second.ID+" lists changes to manifest "+first.ID+
		": manifest "+first.ID+" does not exist")
	_, err = f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: owner, ID: second.ID})
	requireRefusal(t, err, ErrSnapshot, "does not exist")

	stepChanges(t, ws, 2)
	third := record(t, f, ws)
	s := storedForm(t, f, third.ID)
	assert.Empty(t, s.Base, "the folder's base cannot be loaded: a whole manifest")
	assert.Zero(t, s.Depth)
	dir := t.TempDir()
	_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: third.ID})
	require.NoError(t, err)
	assert.Equal(t, treeState(t, ws), treeState(t, dir))
}

func TestRecordStartsAChainOfItsOwnInAnotherOwnersFolder(t *testing.T) {
	f, _ := newFiles(t)
	ctx := context.Background()
	ws := fillWorkspace(t, t.TempDir(), 50, 50<<10)
	first := record(t, f, ws)
	stepChanges(t, ws, 1)
	rec, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: "other"})
	require.NoError(t, err)
	s := storedForm(t, f, rec.ID)
	assert.Empty(t, s.Base, "another owner's manifest is no base")
	assert.Equal(t, "other", s.Owner)
	assert.Equal(t, 3, rec.Hashed, "its blobs are still trusted: only the changed files are read")
	assert.NotEqual(t, first.ID, rec.ID)
}
