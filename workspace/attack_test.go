package workspace

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file play a command of a parallel step that swaps
// entries of the workspace while the worker snapshots or restores it. The
// swap happens through testHook, at the point where a name was listed
// (or its folder checked) and is about to be opened.

const canary = "CANARY-7f3a: a secret the worker can read"

// onEntry makes fn run when the walk of op ("snapshot", "restore",
// "remove") reaches rel, once.
func onEntry(t *testing.T, op, rel string, fn func()) {
	t.Helper()
	done := false
	testHook = func(gotOp, gotRel string) {
		if gotOp == op && gotRel == rel && !done {
			done = true
			fn()
		}
	}
	t.Cleanup(func() { testHook = nil })
}

// outsideDir returns a folder outside the workspace root holding the
// canary in secret.txt and the given files.
func outsideDir(t *testing.T, files map[string]string) string {
	t.Helper()
	all := map[string]string{"secret.txt": canary}
	for k, v := range files {
		all[k] = v
	}
	return testkit.Workspace(t, all)
}

// storeHolds reports whether any regular file of the snapshot store
// holds the canary.
func storeHolds(t *testing.T, store string) bool {
	t.Helper()
	found := false
	require.NoError(t, filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			found = found || bytes.Contains(data, []byte(canary))
		}
		return nil
	}))
	return found
}

// skippedPaths returns the paths a snapshot skipped, with their reasons.
func skippedPaths(s Snapshot) map[string]string {
	out := map[string]string{}
	for _, sk := range s.Skipped {
		out[sk.Path] = sk.Reason
	}
	return out
}

func TestSnapshotNeverFollowsAFileSwappedForASymlinkOutside(t *testing.T) {
	r, ws := snapshotFixture(t)
	outside := outsideDir(t, nil)
	onEntry(t, "snapshot", "main.go", func() {
		require.NoError(t, os.Remove(filepath.Join(ws, "main.go")))
		require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "main.go")))
	})

	snap, err := r.Snapshot(context.Background(), "p", ws, nil)
	require.NoError(t, err)
	assert.False(t, storeHolds(t, r.SnapshotDir), "the outside file's content is not in the store")
	assert.Contains(t, skippedPaths(snap)["main.go"], "changed while the snapshot was taken")
}

func TestSnapshotNeverEntersAFolderSwappedForASymlink(t *testing.T) {
	for _, target := range []string{"outside", "inside"} {
		t.Run(target, func(t *testing.T) {
			r, ws := snapshotFixture(t)
			dest := outsideDir(t, map[string]string{"a/a.go": "package a\n"})
			if target == "inside" {
				dest = "." // a loop back to the workspace
			}
			onEntry(t, "open", "pkg", func() {
				require.NoError(t, os.Rename(filepath.Join(ws, "pkg"), filepath.Join(ws, "pkg.moved")))
				require.NoError(t, os.Symlink(dest, filepath.Join(ws, "pkg")))
			})

			snap, err := r.Snapshot(context.Background(), "p", ws, nil)
			require.NoError(t, err)
			assert.False(t, storeHolds(t, r.SnapshotDir), "nothing of the outside folder is in the store")
			assert.Equal(t, []Skip{{Path: "pkg", Reason: skipChanged}}, snap.Skipped)
			_, err = os.Lstat(filepath.Join(r.SnapshotDir, snap.ID, "pkg"))
			assert.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

func TestSnapshotOfAFileSwappedForAFifoDoesNotBlock(t *testing.T) {
	r, ws := snapshotFixture(t)
	onEntry(t, "snapshot", "main.go", func() {
		require.NoError(t, os.Remove(filepath.Join(ws, "main.go")))
		require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "main.go"), 0o644))
	})
	snap := snapshotWithin(t, r, ws, 10*time.Second)
	assert.Contains(t, skippedPaths(snap), "main.go")
}

func TestSnapshotSkipsAndReportsFifosAndHardLinks(t *testing.T) {
	r, ws := snapshotFixture(t)
	outside := outsideDir(t, nil)
	require.NoError(t, os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "pkg", "twin.txt")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "abs-link")))
	require.NoError(t, os.Symlink("../../outside", filepath.Join(ws, "pkg", "up-link")))

	snap := snapshotWithin(t, r, ws, 10*time.Second)
	assert.False(t, storeHolds(t, r.SnapshotDir), "the hard link's content is not in the store")
	skipped := skippedPaths(snap)
	assert.Contains(t, skipped["pkg/twin.txt"], "hard links")
	assert.Contains(t, skipped["pipe"], "not a regular file, folder or symlink")
	assert.Contains(t, skipped["abs-link"], "lead outside the workspace")
	assert.Contains(t, skipped["pkg/up-link"], "lead outside the workspace")
	assert.Len(t, skipped, 4)
	assert.Equal(t, 7, snap.Files, "the fixture's six files and its symlink are copied")

	// A restore leaves what the snapshot skipped as it is.
	restored, removed, err := r.Restore(context.Background(), snap.ID, ws, nil)
	require.NoError(t, err)
	assert.Empty(t, restored)
	assert.Empty(t, removed)
	data, err := os.ReadFile(filepath.Join(ws, "pkg", "twin.txt"))
	require.NoError(t, err)
	assert.Equal(t, canary, string(data))
	fi, err := os.Lstat(filepath.Join(ws, "pipe"))
	require.NoError(t, err)
	assert.Equal(t, fs.ModeNamedPipe, fi.Mode().Type())
}

// snapshotWithin takes a snapshot of ws and fails the test when it takes
// longer than limit (a blocked open of a fifo).
func snapshotWithin(t *testing.T, r Root, ws string, limit time.Duration) Snapshot {
	t.Helper()
	type result struct {
		snap Snapshot
		err  error
	}
	done := make(chan result, 1)
	go func() {
		snap, err := r.Snapshot(context.Background(), "p", ws, nil)
		done <- result{snap, err}
	}()
	select {
	case res := <-done:
		require.NoError(t, res.err)
		return res.snap
	case <-time.After(limit):
		t.Fatalf("the snapshot did not finish within %s: it blocked on a fifo", limit)
		return Snapshot{}
	}
}

func TestRestoreNeverWritesThroughAFolderSwappedForASymlinkOutside(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)
	snap, err := r.Snapshot(context.Background(), "p", ws, nil)
	require.NoError(t, err)
	outside := outsideDir(t, map[string]string{"a.go": "outside\n"})
	outsideBefore := treeState(t, outside)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/a.go"), []byte("edited\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "pkg/a/a_test.go")))

	onEntry(t, "restore", "pkg/a/a.go", func() {
		require.NoError(t, os.Rename(filepath.Join(ws, "pkg/a"), filepath.Join(ws, "pkg/moved")))
		require.NoError(t, os.Symlink(outside, filepath.Join(ws, "pkg/a")))
	})
	_, _, err = r.Restore(ctx, snap.ID, ws, nil)
	t.Logf("restore during the swap: %v", err)
	assert.Equal(t, outsideBefore, treeState(t, outside), "nothing outside is written")
	data, err := os.ReadFile(filepath.Join(ws, "pkg/moved/a_test.go"))
	require.NoError(t, err)
	assert.Equal(t, "package a\n", string(data), "the write went to the folder the restore had open")

	testHook = nil
	_, _, err = r.Restore(ctx, snap.ID, ws, nil)
	require.NoError(t, err, "a retry puts the folder back")
	assert.Equal(t, before, treeState(t, ws))
	assert.Equal(t, outsideBefore, treeState(t, outside))
}

func TestRestoreNeverRemovesThroughAFolderSwappedForASymlinkOutside(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)
	snap, err := r.Snapshot(context.Background(), "p", ws, nil)
	require.NoError(t, err)
	outside := outsideDir(t, map[string]string{"extra.txt": "outside\n"})
	outsideBefore := treeState(t, outside)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "pkg/a/extra.txt"), []byte("new\n"), 0o644))

	onEntry(t, "remove", "pkg/a/extra.txt", func() {
		require.NoError(t, os.Rename(filepath.Join(ws, "pkg/a"), filepath.Join(ws, "pkg/moved")))
		require.NoError(t, os.Symlink(outside, filepath.Join(ws, "pkg/a")))
	})
	_, _, err = r.Restore(ctx, snap.ID, ws, nil)
	t.Logf("restore during the swap: %v", err)
	assert.Equal(t, outsideBefore, treeState(t, outside), "nothing outside is removed")

	testHook = nil
	_, _, err = r.Restore(ctx, snap.ID, ws, nil)
	require.NoError(t, err, "a retry puts the folder back")
	assert.Equal(t, before, treeState(t, ws))
	assert.Equal(t, outsideBefore, treeState(t, outside))
}

func TestRestoreRefusesASnapshotHoldingALinkOutside(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	snap, err := r.Snapshot(context.Background(), "p", ws, nil)
	require.NoError(t, err)
	// A store written by hand (or by an older worker) holding a link out.
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(r.SnapshotDir, snap.ID, "passwd")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "new.txt"), []byte("new\n"), 0o644))

	_, _, err = r.Restore(ctx, snap.ID, ws, nil)
	requireRefusal(t, err, ErrSnapshot, "may lead outside the workspace")
	assert.FileExists(t, filepath.Join(ws, "new.txt"), "a refused restore changes nothing")
	_, err = os.Lstat(filepath.Join(ws, "passwd"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
