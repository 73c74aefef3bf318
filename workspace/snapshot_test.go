package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeState describes every entry below root: kind, permissions and a
// content hash or link target, so two trees can be compared for equality.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		if rel == "." {
			return nil
		}
		fi, err := d.Info()
		require.NoError(t, err)
		switch {
		case d.IsDir():
			state[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			state[rel] = "link " + target
		case !d.Type().IsRegular():
			state[rel] = "other " + d.Type().String()
		default:
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			sum := sha256.Sum256(data)
			state[rel] = fmt.Sprintf("file %v %s", fi.Mode().Perm(), hex.EncodeToString(sum[:8]))
		}
		return nil
	})
	require.NoError(t, err)
	return state
}

// snapshotFixture is a workspace with a .git folder, nested files, an
// executable and a symlink, under a root keeping snapshots elsewhere.
func snapshotFixture(t *testing.T) (Root, string) {
	t.Helper()
	ws := testkit.Workspace(t, map[string]string{
		"main.go":         "package main\n",
		"README.md":       "hello\n",
		"pkg/a/a.go":      "package a\n",
		"pkg/a/a_test.go": "package a\n",
		".git/HEAD":       "ref: refs/heads/main\n",
		"scripts/run.sh":  "#!/bin/sh\n",
	})
	require.NoError(t, os.Chmod(filepath.Join(ws, "scripts/run.sh"), 0o755))
	require.NoError(t, os.Symlink("README.md", filepath.Join(ws, "LINK.md")))
	root := filepath.Dir(ws)
	return Root{Dir: root, SnapshotDir: t.TempDir()}, ws
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)

	snap, err := r.Snapshot(ctx, "plan-1", ws, nil)
	require.NoError(t, err)
	assert.Equal(t, 7, snap.Files, "six files and a symlink")
	assert.Empty(t, snap.Skipped)
	id := snap.ID
	assert.True(t, strings.HasPrefix(id, "plan-1-"), id)

	// Modify, delete, create, change a mode, retarget a link, swap a file for a directory.
	write := func(rel, content string) {
		p := filepath.Join(ws, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("main.go", "package main\n\nfunc main() {}\n")
	require.NoError(t, os.Remove(filepath.Join(ws, "pkg/a/a_test.go")))
	write("new.txt", "new\n")
	write("gen/deep/x.go", "package deep\n")
	require.NoError(t, os.Chmod(filepath.Join(ws, "scripts/run.sh"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(ws, "LINK.md")))
	require.NoError(t, os.Symlink("main.go", filepath.Join(ws, "LINK.md")))
	require.NoError(t, os.Remove(filepath.Join(ws, "README.md")))
	write("README.md/inner.txt", "now a directory\n")
	write(".git/ORIG_HEAD", "abc\n")
	require.NotEqual(t, before, treeState(t, ws))

	restored, removed, err := r.Restore(ctx, id, ws, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"LINK.md", "README.md", "main.go", "pkg/a/a_test.go", "scripts/run.sh"}, restored)
	assert.Equal(t, []string{".git/ORIG_HEAD", "README.md/inner.txt", "gen/deep/x.go", "new.txt"}, removed)
	assert.Equal(t, before, treeState(t, ws), "the workspace is as it was")

	restored, removed, err = r.Restore(ctx, id, ws, nil)
	require.NoError(t, err, "a retry is safe")
	assert.Equal(t, []string{}, restored)
	assert.Equal(t, []string{}, removed)
	assert.Equal(t, before, treeState(t, ws))
}

func TestSnapshotIsReplacedOnRetry(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	first, err := r.Snapshot(ctx, "plan/2 x", ws, nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "late.txt"), []byte("late"), 0o644))
	snap, err := r.Snapshot(ctx, "plan/2 x", ws, nil)
	require.NoError(t, err)
	second := snap.ID
	assert.Equal(t, first.ID, second, "the id depends on the plan and workspace only")
	assert.Regexp(t, `^plan_2_x-[0-9a-f]{8}$`, second)
	assert.Equal(t, first.Files+1, snap.Files)

	state := treeState(t, ws)
	require.NoError(t, os.Remove(filepath.Join(ws, "late.txt")))
	restored, _, err := r.Restore(ctx, second, ws, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"late.txt"}, restored)
	assert.Equal(t, state, treeState(t, ws))

	entries, err := os.ReadDir(r.SnapshotDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{second, second + ".json"}, names, "no temporary copies are left behind")
}

// requireRefusal asserts err is a Refusal of kind kind whose message
// holds msg.
func requireRefusal(t *testing.T, err error, kind error, msg string) {
	t.Helper()
	var refusal *Refusal
	require.ErrorAs(t, err, &refusal)
	assert.ErrorIs(t, err, kind)
	assert.Contains(t, err.Error(), msg)
}

func TestSnapshotRefusals(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"big.bin": strings.Repeat("x", 4096)})
	ctx := context.Background()
	snapshot := func(r Root, planID string) error {
		_, err := r.Snapshot(ctx, planID, ws, nil)
		return err
	}
	requireRefusal(t, snapshot(Root{SnapshotDir: t.TempDir(), SnapshotLimit: 1024}, "p"), ErrSnapshot,
		"over the 0 MiB snapshot limit")
	requireRefusal(t, snapshot(Root{SnapshotDir: filepath.Join(ws, ".snapshots")}, "p"), ErrSnapshot,
		"overlaps the workspace")
	requireRefusal(t, snapshot(Root{SnapshotDir: t.TempDir()}, ""), ErrSnapshot, "plan id is empty")
	requireRefusal(t, snapshot(Root{Dir: testkit.Workspace(t, nil), SnapshotDir: t.TempDir()}, "p"), ErrRejected,
		"outside the workspace root")
}

func TestRestoreRefusals(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	snap, err := r.Snapshot(ctx, "p", ws, nil)
	require.NoError(t, err)
	id := snap.ID
	other := filepath.Join(filepath.Dir(ws), "other")
	require.NoError(t, os.Mkdir(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep.txt"), []byte("keep"), 0o644))

	tests := []struct {
		name, id, ws string
		kind         error
		want         string
	}{
		{name: "unknown id", id: "nope-00000000", ws: ws, kind: ErrSnapshot, want: "not found"},
		{name: "path id", id: "../etc", ws: ws, kind: ErrSnapshot, want: "invalid snapshot id"},
		{name: "empty id", ws: ws, kind: ErrSnapshot, want: "invalid snapshot id"},
		{name: "other workspace", id: id, ws: other, kind: ErrSnapshot, want: "was taken of " + ws},
		{name: "outside root", id: id, ws: "/", kind: ErrRejected, want: "outside the workspace root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := r.Restore(ctx, tt.id, tt.ws, nil)
			requireRefusal(t, err, tt.kind, tt.want)
		})
	}
	assert.FileExists(t, filepath.Join(other, "keep.txt"), "another workspace is never touched")
}

func TestRestoreRecreatesDeletedWorkspace(t *testing.T) {
	r, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)
	snap, err := r.Snapshot(ctx, "p", ws, nil)
	require.NoError(t, err)
	id := snap.ID
	require.NoError(t, os.RemoveAll(ws))

	restored, removed, err := r.Restore(ctx, id, ws, nil)
	require.NoError(t, err)
	assert.Len(t, restored, 7)
	assert.Empty(t, removed)
	assert.Equal(t, before, treeState(t, ws))
}
