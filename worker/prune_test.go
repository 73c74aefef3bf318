package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/workspace"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestPrunerRemovesExpiredSnapshotsAtStartAndOnEachTick(t *testing.T) {
	snaps := t.TempDir()
	root := workspace.Root{Dir: t.TempDir(), SnapshotDir: snaps}
	require.NoError(t, os.Mkdir(filepath.Join(root.Dir, "shop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root.Dir, "shop", "a.go"), []byte("a"), 0o644))
	clock := &fakeClock{now: time.Date(2030, 1, 10, 0, 0, 0, 0, time.UTC)}
	taken := func(planID string, age time.Duration) string {
		snap, err := root.Snapshot(context.Background(), planID, "shop", nil)
		require.NoError(t, err)
		id := snap.ID
		at := clock.Now().Add(-age)
		require.NoError(t, os.Chtimes(filepath.Join(snaps, id+".json"), at, at))
		return id
	}
	old := taken("plan-old", 200*time.Hour)
	recent := taken("plan-recent", 100*time.Hour)

	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	p := pruner{root: root, snapshotRetention: 168 * time.Hour, now: clock.Now, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	go func() {
		defer close(done)
		p.run(ctx, ticks)
	}()
	gone := func(id string) func() bool {
		return func() bool {
			_, err := os.Stat(filepath.Join(snaps, id+".json"))
			return os.IsNotExist(err)
		}
	}

	require.Eventually(t, gone(old), 5*time.Second, 10*time.Millisecond, "the expired snapshot goes at start")
	ticks <- clock.Now() // a tick at the same time: the handoff proves the start's prune is done
	assert.DirExists(t, filepath.Join(snaps, recent), "a snapshot within the retention stays")

	clock.Advance(69 * time.Hour)
	ticks <- clock.Now()
	require.Eventually(t, gone(recent), 5*time.Second, 10*time.Millisecond, "once expired, the next tick removes it")
	assert.NoDirExists(t, filepath.Join(snaps, recent))

	cancel()
	<-done
}

func TestStartPruningWithoutRetentionStartsNothing(t *testing.T) {
	snaps := t.TempDir()
	root := workspace.Root{Dir: t.TempDir(), SnapshotDir: snaps}
	require.NoError(t, os.Mkdir(filepath.Join(root.Dir, "shop"), 0o755))
	snap, err := root.Snapshot(context.Background(), "plan-1", "shop", nil)
	require.NoError(t, err)
	id := snap.ID
	require.NoError(t, os.Chtimes(filepath.Join(snaps, id+".json"), time.Unix(0, 0), time.Unix(0, 0)))
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	stop := startPruning(context.Background(), pruner{root: root, logger: discard})
	stop()
	assert.DirExists(t, filepath.Join(snaps, id), "zero retention keeps snapshots for ever")

	stop = startPruning(context.Background(), pruner{root: root, snapshotRetention: time.Hour, logger: discard})
	stop() // waits for the pruner, which pruned once at start
	assert.NoDirExists(t, filepath.Join(snaps, id), "a retention prunes at start")
}

func TestPrunerRemovesExpiredOutputs(t *testing.T) {
	store := outputs.New(t.TempDir())
	save := func(run string, age time.Duration) string {
		ref, err := store.Save(outputs.Name{Run: run, Step: "s", Origin: outputs.FromTool}, "output")
		require.NoError(t, err)
		at := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(filepath.Dir(ref), at, at))
		return ref
	}
	old, recent := save("plan-old", 200*time.Hour), save("plan-recent", time.Hour)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	snaps := t.TempDir()
	root := workspace.Root{Dir: t.TempDir(), SnapshotDir: snaps}
	require.NoError(t, os.Mkdir(filepath.Join(root.Dir, "shop"), 0o755))
	snap, err := root.Snapshot(context.Background(), "plan-1", "shop", nil)
	require.NoError(t, err)
	id := snap.ID
	require.NoError(t, os.Chtimes(filepath.Join(snaps, id+".json"), time.Unix(0, 0), time.Unix(0, 0)))

	stop := startPruning(context.Background(), pruner{root: root, outputs: store, logger: discard})
	stop()
	assert.FileExists(t, old, "a zero retention keeps outputs for ever")

	stop = startPruning(context.Background(), pruner{root: root, outputs: store, outputsRetention: 168 * time.Hour, logger: discard})
	stop() // waits for the pruner, which pruned once at start
	assert.NoFileExists(t, old, "an expired plan's outputs go")
	assert.NoDirExists(t, filepath.Dir(old))
	assert.FileExists(t, recent, "outputs within the retention stay")
	assert.DirExists(t, filepath.Join(snaps, id), "snapshots keep their own retention (none here)")
}
