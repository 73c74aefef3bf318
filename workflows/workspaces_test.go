package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// registryHarness runs PlanWorkspaces in the SDK's test environment,
// continuing as new after perRun inputs.
func registryHarness(t *testing.T, perRun int) *harness {
	h := newHarness(t)
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context, st signals.WorkspaceRegistry) error {
		return planWorkspaces(ctx, st, perRun)
	}, workflow.RegisterOptions{Name: signals.WorkspacesWorkflowType})
	return h
}

// lease asks the registry for key on behalf of planID's run "r-"+planID.
func lease(h *harness, key, planID string) *outcome[signals.WorkspaceLease] {
	return sendUpdate[signals.WorkspaceLease](h, signals.AcquireWorkspace.Name,
		signals.WorkspaceLeaseRequest{Key: key, PlanID: planID, RunID: "r-" + planID})
}

func TestRegistryKeepsOpenPlansApart(t *testing.T) {
	h := registryHarness(t, 1000)
	got := map[string]*outcome[signals.WorkspaceLease]{}
	var released *outcome[signals.ReleaseWorkspaceResponse]
	var wrongRun *outcome[signals.ReleaseWorkspaceResponse]
	var listed, after []signals.WorkspaceLease
	h.at(time.Second, func() {
		got["A a"] = lease(h, "a", "A")
		got["B a"] = lease(h, "a", "B")
		got["B a/sub"] = lease(h, "a/sub", "B")
		got["B ."] = lease(h, ".", "B")
		got["B .."] = lease(h, "../x", "B")
		got["C team"] = lease(h, "team/shop", "C")
		got["B team"] = lease(h, "team", "B")
		got["B ab"] = lease(h, "ab", "B")
		got["A a again"] = lease(h, "a", "A")
	})
	h.at(2*time.Second, func() {
		listed = query(h, signals.WorkspacesQuery)
		wrongRun = sendUpdate[signals.ReleaseWorkspaceResponse](h, signals.ReleaseWorkspace.Name,
			signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "another-run"})
		released = sendUpdate[signals.ReleaseWorkspaceResponse](h, signals.ReleaseWorkspace.Name,
			signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
	})
	h.at(3*time.Second, func() { got["B a after"] = lease(h, "a/sub", "B") })
	h.at(4*time.Second, func() {
		after = query(h, signals.WorkspacesQuery)
		h.env.CancelWorkflow()
	})
	h.env.ExecuteWorkflow(signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})

	a := requireAccepted(t, got["A a"])
	assert.Equal(t, signals.WorkspaceLease{Key: "a", PlanID: "A", RunID: "r-A", Since: a.Since}, a)
	requireRejected(t, got["B a"], `workspace "a" is held by plan A (run r-A)`)
	holder, ok := signals.BusyHolder(got["B a"].rejected)
	require.True(t, ok, "the refusal carries the holder")
	assert.Equal(t, a, holder)
	requireRejected(t, got["B a/sub"], `workspace "a/sub" lies inside workspace "a", held by plan A`)
	requireRejected(t, got["B ."], "whole workspace root")
	requireRejected(t, got["B .."], "leaves the workspace root")
	requireAccepted(t, got["C team"])
	requireRejected(t, got["B team"], `workspace "team" holds workspace "team/shop", held by plan C`)
	requireAccepted(t, got["B ab"])
	assert.Equal(t, a, requireAccepted(t, got["A a again"]), "the same plan again: the same lease")

	assert.Equal(t, []string{"a", "ab", "team/shop"}, keys(listed))
	assert.False(t, requireAccepted(t, wrongRun).Released, "another run's release changes nothing")
	assert.True(t, requireAccepted(t, released).Released)
	b := requireAccepted(t, got["B a after"])
	assert.Equal(t, "a/sub", b.Key, "free once A released it")
	assert.Equal(t, []string{"a/sub", "team/shop"}, keys(after), "B gave up ab for a/sub: one workspace a plan")
}

func TestRegistryReleasesBySignal(t *testing.T) {
	h := registryHarness(t, 1000)
	var first, second *outcome[signals.WorkspaceLease]
	var listed []signals.WorkspaceLease
	h.at(time.Second, func() { first = lease(h, "a", "A") })
	h.at(2*time.Second, func() {
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, "not a request")
	})
	h.at(3*time.Second, func() { second = lease(h, "a", "B") })
	h.at(4*time.Second, func() {
		listed = query(h, signals.WorkspacesQuery)
		h.env.CancelWorkflow()
	})
	h.env.ExecuteWorkflow(signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})

	requireAccepted(t, first)
	assert.Equal(t, "B", requireAccepted(t, second).PlanID)
	require.Len(t, listed, 1)
}

func TestRegistryContinuesAsNewWithItsWholeState(t *testing.T) {
	h := registryHarness(t, 3)
	h.at(time.Second, func() {
		lease(h, "a", "A")
		lease(h, "b", "B")
		lease(h, "a", "C") // refused: not counted, not recorded
	})
	h.at(2*time.Second, func() { lease(h, "c", "C") })
	h.env.ExecuteWorkflow(signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})

	require.True(t, h.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(h.env.GetWorkflowError(), &can), "%v", h.env.GetWorkflowError())
	assert.Equal(t, signals.WorkspacesWorkflowType, can.WorkflowType.Name)
	var next signals.WorkspaceRegistry
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	assert.Equal(t, 1, next.Runs)
	require.Len(t, next.Leases, 3)
	assert.Equal(t, "C", next.Leases["c"].PlanID)

	// The continuation refuses what the first run would have.
	h2 := registryHarness(t, 1000)
	var again *outcome[signals.WorkspaceLease]
	h2.at(time.Second, func() { again = lease(h2, "a/x", "D") })
	h2.at(2*time.Second, func() { h2.env.CancelWorkflow() })
	h2.env.ExecuteWorkflow(signals.WorkspacesWorkflowType, next)
	requireRejected(t, again, "held by plan A")
}

// keys lists the leases' keys.
func keys(ls []signals.WorkspaceLease) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Key)
	}
	return out
}

func TestRegistryAppliesAReleaseSentWithTheNextAcquire(t *testing.T) {
	h := registryHarness(t, 1000)
	var next *outcome[signals.WorkspaceLease]
	h.at(time.Second, func() { lease(h, "a", "A") })
	h.at(2*time.Second, func() {
		// In one workflow task: A's release, then B's acquire.
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
		next = lease(h, "a", "B")
	})
	h.at(3*time.Second, func() { h.env.CancelWorkflow() })
	h.env.ExecuteWorkflow(signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})

	assert.Equal(t, "B", requireAccepted(t, next).PlanID)
}
