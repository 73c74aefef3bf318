package activities

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
)

// fakeRegistry keeps leases as the registry workflow does, and knows
// which plans are open.
type fakeRegistry struct {
	mu       sync.Mutex
	leases   map[string]signals.WorkspaceLease
	closed   map[string]bool
	released []signals.WorkspaceLeaseRequest
	fault    error
}

func newFakeRegistry() *fakeRegistry {
	return &fakeRegistry{leases: map[string]signals.WorkspaceLease{}, closed: map[string]bool{}}
}

func (f *fakeRegistry) Acquire(_ context.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fault != nil {
		return signals.WorkspaceLease{}, f.fault
	}
	if err := req.Validate(); err != nil {
		return signals.WorkspaceLease{}, signals.Reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	for key, l := range f.leases {
		if l.PlanID != req.PlanID && plan.WorkspacesOverlap(key, req.Key) {
			return signals.WorkspaceLease{}, signals.WorkspaceBusy(req, l)
		}
	}
	l := signals.WorkspaceLease{Key: req.Key, PlanID: req.PlanID, RunID: req.RunID, Since: time.Unix(0, 0)}
	f.leases[req.Key] = l
	return l, nil
}

func (f *fakeRegistry) Release(_ context.Context, req signals.WorkspaceLeaseRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, req)
	if l, ok := f.leases[req.Key]; ok && l.Holds(req) {
		delete(f.leases, req.Key)
	}
	return nil
}

func (f *fakeRegistry) Open(_ context.Context, l signals.WorkspaceLease) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.closed[l.PlanID], nil
}

// leaseRig is a workspace root holding a plan's folder "a" and a file
// outside it, with the fake registry.
func leaseRig(t *testing.T) (Set, *fakeRegistry, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755))
	reg := newFakeRegistry()
	return worker{Workspace: workspace.Root{Dir: root}, leases: reg}.set(), reg, root
}

func acquireIn(planID, ws string) AcquireWorkspaceInput {
	return AcquireWorkspaceInput{PlanID: planID, RunID: "r-" + planID, Workspace: ws, Registry: "reg", TaskQueue: "q"}
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
	assert.Empty(t, reg.leases, "nothing was leased")
}

func TestAcquireWorkspaceDoesNotCreateANamedWorkspace(t *testing.T) {
	a, _, root := leaseRig(t)
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-F", "typo"))
	requireAppError(t, err, ErrorTypeWorkspace, "typo")
	assert.NoDirExists(t, filepath.Join(root, "typo"))
}

func TestAcquireWorkspaceOwnNeedsARoot(t *testing.T) {
	a := worker{leases: newFakeRegistry()}.set()
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
	reg.closed["plan-A"] = true // terminated: it never released

	out, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-H", "a/sub"))
	require.NoError(t, err)
	assert.Equal(t, "plan-H", out.Lease.PlanID)
	assert.Equal(t, []signals.WorkspaceLeaseRequest{{Key: "a", PlanID: "plan-A", RunID: "r-plan-A"}}, reg.released)
}

func TestAcquireWorkspaceFaultIsRetryable(t *testing.T) {
	a, reg, _ := leaseRig(t)
	reg.fault = errors.New("registry unavailable")
	_, err := a.AcquireWorkspace(context.Background(), acquireIn("plan-A", "a"))
	require.Error(t, err)
	var app *temporal.ApplicationError
	assert.False(t, errors.As(err, &app) && app.NonRetryable(), "a retry may reach it")
}
