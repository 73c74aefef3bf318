package activities

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/lease/leasetest"
)

// leaseRig is a workspace root holding a plan's folder "a" and a file
// outside it, with lease workflows in memory.
func leaseRig(t *testing.T) (Set, *leasetest.Memory, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755))
	reg := &leasetest.Memory{}
	return worker{Workspace: workspace.Root{Dir: root}, leases: reg}.set(), reg, root
}

func acquireIn(planID, ws string) AcquireWorkspaceInput {
	return AcquireWorkspaceInput{PlanID: planID, RunID: "r-" + planID, Workspace: ws, TaskQueue: "q"}
}

func TestAcquireWorkspaceCreatesThePlansOwnFolder(t *testing.T) {
	a, _, root := leaseRig(t)
	in := acquireIn("plan-B", plan.DefaultWorkspace("plan-B"))
	in.Own = true
	out, err := a.AcquireWorkspace(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "plan-B", out.Lease.Key)
	assert.DirExists(t, filepath.Join(root, "plan-B"), "created inside the root, not the root itself")
}

func TestAcquireWorkspaceSnapshotsOnlyOnceLeased(t *testing.T) {
	a, _, root := leaseRig(t)
	a.Tools.Folders.Root.SnapshotDir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "main.go"), []byte("package main\n"), 0o644))
	in := acquireIn("plan-A", "a")
	in.Snapshot = &SnapshotInput{PlanID: "plan-A-external", Workspace: "a"}
	out, err := a.AcquireWorkspace(context.Background(), in)
	require.NoError(t, err)
	require.NotNil(t, out.Snapshot, "the snapshot asked for")
	assert.NotEmpty(t, out.Snapshot.SnapshotID)
	assert.Equal(t, 1, out.Snapshot.Files)

	busy := acquireIn("plan-C", "a")
	busy.Snapshot = &SnapshotInput{PlanID: "plan-C-external", Workspace: "a"}
	out, err = a.AcquireWorkspace(context.Background(), busy)
	requireAppError(t, err, signals.ErrorTypeWorkspaceBusy, "held by plan plan-A")
	assert.Nil(t, out.Snapshot, "no snapshot of a folder another plan holds")
}

func TestAcquireWorkspaceRefusesTheRootAndWhatLeavesIt(t *testing.T) {
	a, reg, root := leaseRig(t)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(root, filepath.Join(root, "a", "up")))
	for _, ws := range []string{"", ".", root, "a/..", "a/up", "../", outside} {
		t.Run(ws, func(t *testing.T) {
			_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-E", ws))
			var app *temporal.ApplicationError
			require.ErrorAs(t, err, &app)
			assert.Equal(t, ErrorTypeWorkspace, app.Type())
			assert.True(t, app.NonRetryable())
		})
	}
	assert.Empty(t, reg.Held(), "nothing was leased")
}

func TestAcquireWorkspaceDoesNotCreateANamedWorkspace(t *testing.T) {
	a, _, root := leaseRig(t)
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-F", "typo"))
	requireAppError(t, err, ErrorTypeWorkspace, "typo")
	assert.NoDirExists(t, filepath.Join(root, "typo"))
}

func TestAcquireWorkspaceOwnNeedsARoot(t *testing.T) {
	a := worker{leases: &leasetest.Memory{}}.set()
	in := acquireIn("plan-G", "plan-G")
	in.Own = true
	_, err := a.AcquireWorkspace(context.Background(), in)
	requireAppError(t, err, ErrorTypeWorkspace, "the worker has no workspace root")
}

func TestAcquireWorkspaceRefusesOverlapsNamingTheHolder(t *testing.T) {
	a, _, root := leaseRig(t)
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-A", "a"))
	require.NoError(t, err)
	// A symlink inside the root to A's folder is A's folder.
	require.NoError(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "alias")))
	for _, tc := range []struct{ ws, want string }{
		{"a", `workspace "a" is held by plan plan-A`},
		{filepath.Join(root, "a"), `workspace "a" is held by plan plan-A`},
		{"a/sub", `workspace "a/sub" lies inside workspace "a", held by plan plan-A`},
		{"alias", `workspace "a" is held by plan plan-A`},
	} {
		t.Run(tc.ws, func(t *testing.T) {
			_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-C", tc.ws))
			requireAppError(t, err, signals.ErrorTypeWorkspaceBusy, tc.want)
			holder, ok := signals.BusyHolder(err)
			require.True(t, ok)
			assert.Equal(t, "plan-A", holder.PlanID)
		})
	}
	again, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-A", "a"))
	require.NoError(t, err, "the holder acquiring again is fine")
	assert.Equal(t, "a", again.Lease.Key)
}

func TestAcquireWorkspaceClearsAClosedPlansLease(t *testing.T) {
	a, reg, _ := leaseRig(t)
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-A", "a"))
	require.NoError(t, err)
	reg.Close("plan-A") // terminated: it never released

	out, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-H", "a/sub"))
	require.NoError(t, err)
	assert.Equal(t, "plan-H", out.Lease.PlanID)
	assert.Equal(t, []leasetest.Release{{At: "a", Req: signals.WorkspaceLeaseRequest{Key: "a", PlanID: "plan-A", RunID: "r-plan-A"}}},
		reg.Released(), "A's stale mark on a released, where H's intent met it")
	assert.Equal(t, []string{"a", "a/sub"}, reg.Held(), "H's intent on a and its lease on a/sub")
}

func TestAcquireWorkspaceFaultIsRetryable(t *testing.T) {
	a, reg, _ := leaseRig(t)
	reg.Fail("a", errors.New("lease workflow unavailable"))
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-A", "a"))
	require.Error(t, err)
	var app *temporal.ApplicationError
	assert.False(t, errors.As(err, &app) && app.NonRetryable(), "a retry may reach it")
}
