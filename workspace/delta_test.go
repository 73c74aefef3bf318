package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

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
