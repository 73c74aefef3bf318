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

// keyLeaseHarness runs PlanWorkspaceLease in the SDK's test environment,
// continuing as new after perRun inputs.
func keyLeaseHarness(t *testing.T, perRun int) *harness {
	h := newHarness(t)
	h.env.RegisterWorkflowWithOptions(func(ctx workflow.Context, st signals.WorkspaceLeases) error {
		return planWorkspaceLease(ctx, st, perRun)
	}, workflow.RegisterOptions{Name: signals.LeaseWorkflowType})
	return h
}

// mark asks the lease workflow for a mark for planID's run "r-"+planID
// leasing key.
func mark(h *harness, key, planID string) *outcome[signals.WorkspaceLease] {
	return sendUpdate[signals.WorkspaceLease](h, signals.AcquireWorkspace.Name,
		signals.WorkspaceLeaseRequest{Key: key, PlanID: planID, RunID: "r-" + planID})
}

func TestKeyLeaseGrantsAndRefusesNamingTheHolder(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	got := map[string]*outcome[signals.WorkspaceLease]{}
	var released, wrongRun *outcome[signals.ReleaseWorkspaceResponse]
	var listed, after []signals.WorkspaceLease
	h.at(time.Second, func() {
		got["A a"] = mark(h, "a", "A")
		got["B a"] = mark(h, "a", "B")
		got["B a/sub"] = mark(h, "a/sub", "B")
		got["B ab"] = mark(h, "ab", "B")
		got["B .."] = mark(h, "a/../x", "B")
		got["A a again"] = mark(h, "a", "A")
	})
	h.at(2*time.Second, func() {
		listed = query(h, signals.WorkspacesQuery)
		wrongRun = sendUpdate[signals.ReleaseWorkspaceResponse](h, signals.ReleaseWorkspace.Name,
			signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "another-run"})
		released = sendUpdate[signals.ReleaseWorkspaceResponse](h, signals.ReleaseWorkspace.Name,
			signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
	})
	h.at(3*time.Second, func() { got["B a/sub after"] = mark(h, "a/sub", "B") })
	h.at(4*time.Second, func() {
		after = query(h, signals.WorkspacesQuery)
		h.env.CancelWorkflow()
	})
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "a"})

	a := requireAccepted(t, got["A a"])
	assert.Equal(t, signals.WorkspaceLease{Key: "a", PlanID: "A", RunID: "r-A", Since: a.Since}, a)
	requireRejected(t, got["B a"], `workspace "a" is held by plan A (run r-A)`)
	holder, ok := signals.BusyHolder(got["B a"].rejected)
	require.True(t, ok, "the refusal carries the holder")
	assert.Equal(t, a, holder)
	requireRejected(t, got["B a/sub"], `workspace "a/sub" lies inside workspace "a", held by plan A`)
	requireRejectedAs(t, got["B ab"], signals.ErrorTypeInvalidInput)
	requireRejected(t, got["B .."], "not a clean path")
	assert.Equal(t, a, requireAccepted(t, got["A a again"]), "the same plan again: the same lease")

	assert.Equal(t, []signals.WorkspaceLease{a}, listed)
	assert.False(t, requireAccepted(t, wrongRun).Released, "another run's release changes nothing")
	assert.True(t, requireAccepted(t, released).Released)
	b := requireAccepted(t, got["B a/sub after"])
	assert.Equal(t, "a/sub", b.Key, "an intent, free once A released the key")
	assert.Equal(t, []signals.WorkspaceLease{b}, after)
}

func TestKeyLeaseIntentsShareTheKeyAndKeepTheExclusiveOut(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	got := map[string]*outcome[signals.WorkspaceLease]{}
	h.at(time.Second, func() {
		got["C shop"] = mark(h, "team/shop", "C")
		got["D api"] = mark(h, "team/api/v1", "D")
		got["B team"] = mark(h, "team", "B")
	})
	h.at(2*time.Second, func() { h.env.CancelWorkflow() })
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "team"})

	requireAccepted(t, got["C shop"])
	requireAccepted(t, got["D api"])
	requireRejected(t, got["B team"], `workspace "team" holds workspace "team/shop", held by plan C`)
}

func TestKeyLeaseReleasesBySignal(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	var first, second *outcome[signals.WorkspaceLease]
	var listed []signals.WorkspaceLease
	h.at(time.Second, func() { first = mark(h, "a", "A") })
	h.at(2*time.Second, func() {
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, "not a request")
	})
	h.at(3*time.Second, func() { second = mark(h, "a", "B") })
	h.at(4*time.Second, func() {
		listed = query(h, signals.WorkspacesQuery)
		h.env.CancelWorkflow()
	})
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "a"})

	requireAccepted(t, first)
	assert.Equal(t, "B", requireAccepted(t, second).PlanID)
	require.Len(t, listed, 1)
}

func TestKeyLeaseAppliesAReleaseSentWithTheNextAcquire(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	var next *outcome[signals.WorkspaceLease]
	h.at(time.Second, func() { mark(h, "a", "A") })
	h.at(2*time.Second, func() {
		// In one workflow task: A's release, then B's acquire.
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
		next = mark(h, "a", "B")
	})
	h.at(3*time.Second, func() { h.env.CancelWorkflow() })
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "a"})

	assert.Equal(t, "B", requireAccepted(t, next).PlanID)
}

func TestKeyLeaseContinuesAsNewWithItsWholeState(t *testing.T) {
	h := keyLeaseHarness(t, 3)
	h.at(time.Second, func() {
		mark(h, "a/x", "A")
		mark(h, "a/y", "B")
		mark(h, "a", "C") // refused: not counted, not recorded
	})
	h.at(2*time.Second, func() { mark(h, "a/z", "C") })
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "a"})

	require.True(t, h.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(h.env.GetWorkflowError(), &can), "%v", h.env.GetWorkflowError())
	assert.Equal(t, signals.LeaseWorkflowType, can.WorkflowType.Name)
	var next signals.WorkspaceLeases
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	assert.Equal(t, 1, next.Runs)
	assert.Equal(t, "a", next.Key)
	require.Len(t, next.Holders, 3)
	assert.Equal(t, "a/z", next.Holders["C"].Key)

	// The continuation refuses what the first run would have.
	h2 := keyLeaseHarness(t, 1000)
	var again *outcome[signals.WorkspaceLease]
	h2.at(time.Second, func() { again = mark(h2, "a", "D") })
	h2.at(2*time.Second, func() { h2.env.CancelWorkflow() })
	h2.env.ExecuteWorkflow(signals.LeaseWorkflowType, next)
	requireRejected(t, again, "held by plan A")
}

func TestKeyLeaseEndsWhenIdleAndEmptyOnly(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	var released time.Time
	h.at(time.Second, func() { mark(h, "a", "A") })
	// Held for longer than leaseIdle: the run stays.
	h.at(time.Second+3*leaseIdle, func() {
		h.env.SignalWorkflow(signals.ReleaseWorkspace.Name, signals.WorkspaceLeaseRequest{Key: "a", PlanID: "A", RunID: "r-A"})
		released = h.env.Now()
	})
	start := h.env.Now()
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "a"})

	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError(), "it returns")
	require.False(t, released.IsZero(), "it held the lease until the release")
	assert.GreaterOrEqual(t, h.env.Now().Sub(released), leaseIdle, "a while idle after the last input")
	assert.Less(t, h.env.Now().Sub(start), 3*leaseIdle+leaseIdle+2*time.Minute)
}

func TestKeyLeaseRefusesAnInvalidKey(t *testing.T) {
	h := keyLeaseHarness(t, 1000)
	h.env.ExecuteWorkflow(signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: "."})
	require.Error(t, h.env.GetWorkflowError())
	assert.Contains(t, h.env.GetWorkflowError().Error(), "whole workspace root")
}
