package workspace

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdoptForksAManifestWithoutCopyingBlobs(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	rec := record(t, f, filesFixture(t))
	blobs := len(keys(t, mem, blobsPrefix))

	_, err := f.Adopt(ctx, rec.ID, "other", "fork", "p2")
	requireRefusal(t, err, ErrSnapshot, "belongs to another workspace")
	_, err = f.Adopt(ctx, rec.ID, owner, "../up", "p2")
	requireRefusal(t, err, ErrSnapshot, "leaves the workspace root")

	id, err := f.Adopt(ctx, rec.ID, owner, "fork", "p2")
	require.NoError(t, err)
	assert.NotEqual(t, rec.ID, id)
	assert.Len(t, keys(t, mem, blobsPrefix), blobs, "the fork shares the blobs")
	assert.Equal(t, []string{"pins/p2/" + id}, keys(t, mem, "pins/p2/"))
	forked, err := f.Load(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "fork", forked.Owner)
	_, err = f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: owner, ID: id})
	requireRefusal(t, err, ErrSnapshot, "belongs to another workspace")
}

// gcFixture records a workspace for each of four plans at a fake clock's
// t0: they share one file and each has its own.
func gcFixture(t *testing.T) (*Files, *blobstore.Memory, *time.Time, map[string]string) {
	t.Helper()
	f, mem := newFiles(t)
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	mem.Now = func() time.Time { return clock }
	f.now = mem.Now
	ids := map[string]string{}
	for _, p := range []string{"open", "closed-old", "closed-recent", "unknown"} {
		ws := testkit.Workspace(t, map[string]string{"shared.txt": "shared\n", p + ".txt": p + "\n"})
		rec, err := f.Record(context.Background(), RecordRequest{Dir: ws, Owner: owner, PlanID: p})
		require.NoError(t, err)
		ids[p] = rec.ID
	}
	return f, mem, &clock, ids
}

func TestCollectRemovesWhatNoPlanKeeps(t *testing.T) {
	f, mem, clock, ids := gcFixture(t)
	ctx := context.Background()
	*clock = clock.Add(2 * time.Hour)
	young := []byte("a record in flight put this blob before its manifest")
	require.NoError(t, mem.Put(ctx, blobKey(hashOf(young)), bytes.NewReader(young), int64(len(young))))
	now := *clock
	state := func(_ context.Context, planID string) (bool, time.Time, error) {
		switch planID {
		case "open":
			return true, time.Time{}, nil
		case "closed-old":
			return false, now.Add(-48 * time.Hour), nil
		case "closed-recent":
			return false, now.Add(-time.Hour), nil
		}
		return false, time.Time{}, nil // not found
	}
	req := CollectRequest{Now: now, Retention: 24 * time.Hour, Grace: time.Hour, DryRun: true, PlanState: state}
	all := keys(t, mem, "")

	dry, err := f.Collect(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, all, keys(t, mem, ""), "a dry run removes nothing")
	assert.Equal(t, 2, dry.Pins)
	assert.Equal(t, 2, dry.Manifests)
	assert.Equal(t, 2, dry.Blobs, "each dropped plan's own file; the shared one stays")

	req.DryRun = false
	got, err := f.Collect(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, dry, got, "the dry run counted what the run removed")
	assert.ElementsMatch(t, []string{
		"pins/closed-old/" + ids["closed-old"], "pins/unknown/" + ids["unknown"],
		manifestKey(ids["closed-old"]), manifestKey(ids["unknown"]),
		blobKey(hashOf([]byte("closed-old\n"))), blobKey(hashOf([]byte("unknown\n"))),
	}, got.Sample)
	assert.Contains(t, keys(t, mem, blobsPrefix), blobKey(hashOf(young)), "a young blob is within its grace")
	for _, p := range []string{"open", "closed-recent"} {
		_, err := f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: owner, ID: ids[p]})
		require.NoError(t, err, "plan %s's workspace is whole", p)
	}

	again, err := f.Collect(ctx, req)
	require.NoError(t, err)
	assert.Zero(t, again.Pins+again.Manifests+again.Blobs)
}

func TestCollectKeepsAnUnpinnedManifestWithinItsGrace(t *testing.T) {
	f, mem, clock, ids := gcFixture(t)
	ctx := context.Background()
	*clock = clock.Add(2 * time.Hour)
	// A record in flight reuses the old plan's blobs; its pin is not
	// written yet.
	fresh, err := f.Adopt(ctx, ids["closed-old"], owner, "next", "")
	require.NoError(t, err)
	state := func(context.Context, string) (bool, time.Time, error) { return false, time.Time{}, nil }

	_, err = f.Collect(ctx, CollectRequest{Now: *clock, Grace: time.Hour, PlanState: state})
	require.NoError(t, err)
	_, err = f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: "next", ID: fresh})
	require.NoError(t, err, "the blobs of a young manifest are kept")
	assert.NotContains(t, keys(t, mem, manifestsPrefix), manifestKey(ids["closed-old"]))
}

func TestCollectStopsWhenAPlanStateFails(t *testing.T) {
	f, mem, _, _ := gcFixture(t)
	all := keys(t, mem, "")
	state := func(context.Context, string) (bool, time.Time, error) {
		return false, time.Time{}, assert.AnError
	}
	_, err := f.Collect(context.Background(), CollectRequest{Now: time.Now().Add(time.Hour * 1000), PlanState: state})
	require.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, all, keys(t, mem, ""), "nothing was removed")
}
