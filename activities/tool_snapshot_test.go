package activities

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
// executable and a symlink, with activities keeping snapshots elsewhere.
func snapshotFixture(t *testing.T) (*Activities, string) {
	t.Helper()
	ws := toolWorkspace(t, map[string]string{
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
	return New(WithWorkspaceRoot(root), WithSnapshotDir(t.TempDir())), ws
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	a, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)

	snap, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "plan-1", Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, 7, snap.Files, "six files and a symlink")
	assert.True(t, strings.HasPrefix(snap.SnapshotID, "plan-1-"), snap.SnapshotID)

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

	out, err := a.RestoreWorkspace(ctx, RestoreInput{SnapshotID: snap.SnapshotID, Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, []string{"LINK.md", "README.md", "main.go", "pkg/a/a_test.go", "scripts/run.sh"}, out.Restored)
	assert.Equal(t, []string{".git/ORIG_HEAD", "README.md/inner.txt", "gen/deep/x.go", "new.txt"}, out.Removed)
	assert.Equal(t, before, treeState(t, ws), "the workspace is as it was")

	again, err := a.RestoreWorkspace(ctx, RestoreInput{SnapshotID: snap.SnapshotID, Workspace: ws})
	require.NoError(t, err, "a retry is safe")
	assert.Equal(t, RestoreOutput{Restored: []string{}, Removed: []string{}}, again)
	assert.Equal(t, before, treeState(t, ws))
}

func TestSnapshotIsReplacedOnRetry(t *testing.T) {
	a, ws := snapshotFixture(t)
	ctx := context.Background()
	first, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "plan/2 x", Workspace: ws})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "late.txt"), []byte("late"), 0o644))
	second, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "plan/2 x", Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, first.SnapshotID, second.SnapshotID, "the id depends on the plan and workspace only")
	assert.Regexp(t, `^plan_2_x-[0-9a-f]{8}$`, second.SnapshotID)
	assert.Equal(t, first.Files+1, second.Files)

	state := treeState(t, ws)
	require.NoError(t, os.Remove(filepath.Join(ws, "late.txt")))
	out, err := a.RestoreWorkspace(ctx, RestoreInput{SnapshotID: second.SnapshotID, Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, []string{"late.txt"}, out.Restored)
	assert.Equal(t, state, treeState(t, ws))

	entries, err := os.ReadDir(a.snapshotDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{second.SnapshotID, second.SnapshotID + ".json"}, names,
		"no temporary copies are left behind")
}

func TestSnapshotRefusals(t *testing.T) {
	ws := toolWorkspace(t, map[string]string{"big.bin": strings.Repeat("x", 4096)})
	ctx := context.Background()

	_, err := New(WithSnapshotDir(t.TempDir()), WithSnapshotLimit(1024)).
		SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	requireAppError(t, err, ErrSnapshot, "over the 0 MiB snapshot limit")

	_, err = New(WithSnapshotDir(filepath.Join(ws, ".snapshots"))).
		SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	requireAppError(t, err, ErrSnapshot, "overlaps the workspace")

	_, err = New(WithSnapshotDir(t.TempDir())).SnapshotWorkspace(ctx, SnapshotInput{Workspace: ws})
	requireAppError(t, err, ErrSnapshot, "plan id is empty")

	_, err = New(WithWorkspaceRoot(toolWorkspace(t, nil)), WithSnapshotDir(t.TempDir())).
		SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	requireAppError(t, err, ErrWorkspace, "outside the workspace root")
}

func TestRestoreRefusals(t *testing.T) {
	a, ws := snapshotFixture(t)
	ctx := context.Background()
	snap, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	require.NoError(t, err)
	other := filepath.Join(filepath.Dir(ws), "other")
	require.NoError(t, os.Mkdir(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep.txt"), []byte("keep"), 0o644))

	tests := []struct {
		name string
		in   RestoreInput
		typ  string
		want string
	}{
		{name: "unknown id", in: RestoreInput{SnapshotID: "nope-00000000", Workspace: ws}, typ: ErrSnapshot, want: "not found"},
		{name: "path id", in: RestoreInput{SnapshotID: "../etc", Workspace: ws}, typ: ErrSnapshot, want: "invalid snapshot id"},
		{name: "empty id", in: RestoreInput{Workspace: ws}, typ: ErrSnapshot, want: "invalid snapshot id"},
		{name: "other workspace", in: RestoreInput{SnapshotID: snap.SnapshotID, Workspace: other}, typ: ErrSnapshot,
			want: "was taken of " + ws},
		{name: "outside root", in: RestoreInput{SnapshotID: snap.SnapshotID, Workspace: "/"}, typ: ErrWorkspace,
			want: "outside the workspace root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.RestoreWorkspace(ctx, tt.in)
			requireAppError(t, err, tt.typ, tt.want)
		})
	}
	assert.FileExists(t, filepath.Join(other, "keep.txt"), "another workspace is never touched")
}

func TestRestoreRecreatesDeletedWorkspace(t *testing.T) {
	a, ws := snapshotFixture(t)
	ctx := context.Background()
	before := treeState(t, ws)
	snap, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(ws))

	out, err := a.RestoreWorkspace(ctx, RestoreInput{SnapshotID: snap.SnapshotID, Workspace: ws})
	require.NoError(t, err)
	assert.Len(t, out.Restored, 7)
	assert.Empty(t, out.Removed)
	assert.Equal(t, before, treeState(t, ws))
}
