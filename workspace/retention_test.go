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

// takenAt sets when snapshot id was taken, as pruning reads it: its
// manifest's modification time.
func takenAt(t *testing.T, dir, id string, at time.Time) {
	t.Helper()
	require.NoError(t, os.Chtimes(filepath.Join(dir, id+".json"), at, at))
}

func TestPruneSnapshotsRemovesOnlyExpiredOnes(t *testing.T) {
	root := t.TempDir()
	snaps := t.TempDir()
	r := Root{Dir: root, SnapshotDir: snaps}
	require.NoError(t, os.Mkdir(filepath.Join(root, "shop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "shop", "a.go"), []byte("a"), 0o644))
	ctx := context.Background()
	old, err := r.Snapshot(ctx, "plan-old", "shop", nil)
	require.NoError(t, err)
	fresh, err := r.Snapshot(ctx, "plan-new", "shop", nil)
	require.NoError(t, err)
	oldID, newID := old.ID, fresh.ID
	leftover := filepath.Join(snaps, "."+oldID+"-123")
	require.NoError(t, os.MkdirAll(leftover, 0o755))
	leftoverManifest := filepath.Join(snaps, ".planmode-ABC")
	require.NoError(t, os.WriteFile(leftoverManifest, []byte("{"), 0o644))

	// A fake clock: "now" is fixed, the snapshots' ages are set around it.
	now := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	takenAt(t, snaps, oldID, now.Add(-169*time.Hour))
	takenAt(t, snaps, newID, now.Add(-167*time.Hour))
	require.NoError(t, os.Chtimes(leftover, now.Add(-200*time.Hour), now.Add(-200*time.Hour)))
	require.NoError(t, os.Chtimes(leftoverManifest, now.Add(-200*time.Hour), now.Add(-200*time.Hour)))

	removed, err := r.PruneSnapshots(now, 168*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{"." + oldID + "-123", ".planmode-ABC", oldID}, removed)
	assert.NoFileExists(t, leftoverManifest)
	assert.NoDirExists(t, filepath.Join(snaps, oldID))
	assert.NoFileExists(t, filepath.Join(snaps, oldID+".json"))
	assert.NoDirExists(t, leftover)
	assert.DirExists(t, filepath.Join(snaps, newID), "a snapshot within the retention stays")

	_, _, err = r.Restore(ctx, oldID, "shop", nil)
	assert.ErrorIs(t, err, ErrSnapshot, "an expired snapshot can no longer be restored")
	_, _, err = r.Restore(ctx, newID, "shop", nil)
	assert.NoError(t, err)

	removed, err = r.PruneSnapshots(now.Add(2*time.Hour), 168*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{newID}, removed, "an hour later the next one expires")
}

func TestPruneSnapshotsKeepsEverythingWithoutRetentionOrFolder(t *testing.T) {
	snaps := t.TempDir()
	r := Root{Dir: t.TempDir(), SnapshotDir: snaps}
	require.NoError(t, os.Mkdir(filepath.Join(r.Dir, "shop"), 0o755))
	snap, err := r.Snapshot(context.Background(), "plan-1", "shop", nil)
	require.NoError(t, err)
	id := snap.ID
	takenAt(t, snaps, id, time.Unix(0, 0))
	removed, err := r.PruneSnapshots(time.Now(), 0)
	require.NoError(t, err)
	assert.Empty(t, removed, "zero retention keeps snapshots for ever")
	assert.DirExists(t, filepath.Join(snaps, id))

	missing := Root{SnapshotDir: filepath.Join(t.TempDir(), "none")}
	removed, err = missing.PruneSnapshots(time.Now(), time.Hour)
	require.NoError(t, err)
	assert.Empty(t, removed)
}
