package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// testSignalLimit stands in for signals.MaxSignalsPerRun: the same code
// path, a cap a test reaches quickly.
const testSignalLimit = 5

// flood sends n select-option signals that name an option and a rank at
// once: each is refused and recorded, and each counts against the run.
func flood(h *harness, n int) {
	for range n {
		signal(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "r1-o1", Rank: 1})
	}
}

func TestSignalCapContinuesTheSelectionWait(t *testing.T) {
	h := newHarness(t)
	h.at(time.Minute, func() { flood(h, testSignalLimit) })
	req := manualReq()
	req.Selection.Timeout = plan.Duration(time.Hour)
	next := h.runToContinue(req, withSignalLimit(testSignalLimit))

	cp := next.Checkpoint
	require.NotNil(t, cp)
	assert.Equal(t, plan.PhaseAwaitingSelection, cp.Phase)
	assert.Len(t, cp.Options.Options, 2, "the options travel")
	assert.Empty(t, cp.Options.SelectedID)
	require.NotNil(t, cp.Options.SelectionTimeout, "and the deadline")
	require.Len(t, cp.Rejected, testSignalLimit, "every refused signal is accounted for")
	require.NotNil(t, cp.Lease, "the lease stays with the plan")
	assert.Empty(t, h.f.released)
	require.NoError(t, next.Validate(), "the continuation's request is valid")

	// The continuation waits on; a legitimate selection lands.
	h2 := newHarness(t).continued()
	h2.env.SetStartTime(h.env.Now())
	h2.at(time.Minute, func() { signal(h2, signals.SelectOption, signals.SelectOptionRequest{Rank: 1}) })
	res := h2.run(next)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "r1-o1", res.SelectedOptionID)
	assert.Zero(t, h2.f.count("Clarify"), "nothing runs twice")
	assert.Zero(t, h2.f.count("GenerateOptions"))
	assert.Zero(t, h2.f.count("AcquireWorkspace"))
	for _, ev := range h2.f.events() {
		assert.NotEqual(t, webhook.EventAwaitingSelection, ev, "the options were announced already")
	}
	require.Len(t, h2.f.released, 1)
}

func TestSelectionDeadlineSurvivesContinueAsNew(t *testing.T) {
	h := newHarness(t)
	h.at(10*time.Minute, func() { flood(h, testSignalLimit) })
	req := manualReq()
	req.Selection.Timeout = plan.Duration(time.Hour)
	start := h.env.Now()
	next := h.runToContinue(req, withSignalLimit(testSignalLimit))

	h2 := newHarness(t).continued()
	h2.env.SetStartTime(h.env.Now())
	var selectedAt time.Time
	h2.f.snapshot = func(activities.SnapshotInput) (activities.SnapshotOutput, error) {
		selectedAt = h2.env.Now()
		return activities.SnapshotOutput{SnapshotID: "snap-1"}, nil
	}
	res := h2.run(next)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Contains(t, res.Plan.Title, "Careful", "the timeout took the recommended option")
	assert.WithinDuration(t, start.Add(time.Hour), selectedAt, time.Second, "an hour after the first wait began, not after the continuation")
}

func TestBelowSignalCapNoContinueAsNew(t *testing.T) {
	h := newHarness(t)
	// With the selection, one signal short of the cap.
	h.at(time.Minute, func() { flood(h, testSignalLimit-2) })
	h.selectAt(2 * time.Minute)
	h.registerRun(withSignalLimit(testSignalLimit))
	h.env.ExecuteWorkflow(signals.WorkflowType, manualReq())

	res := h.result()
	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Len(t, query(h, signals.PendingQuery).Rejected, testSignalLimit-2)
}

func TestSignalCapContinuesAtAStepBoundary(t *testing.T) {
	h := newHarness(t)
	// Mid first step: refused signals, which never change the run.
	h.at(stepTime/2, func() { flood(h, testSignalLimit) })
	next := h.runToContinue(autoReq(), withSignalLimit(testSignalLimit))

	require.NotNil(t, next.Checkpoint)
	assert.Equal(t, plan.PhaseExecuting, next.Checkpoint.Phase)
	assert.Equal(t, []string{"s1"}, h.f.stepIDs(), "the running step ends first")
	assert.Equal(t, plan.StepCompleted, next.Checkpoint.Plan.StepByID("s1").Status)
}

func TestSignalCapContinuesAPausedRun(t *testing.T) {
	h := newHarness(t)
	h.at(stepTime/2, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
	h.at(5*time.Minute, func() { flood(h, testSignalLimit) })
	next := h.runToContinue(autoReq(), withSignalLimit(testSignalLimit))

	cp := next.Checkpoint
	require.NotNil(t, cp)
	assert.True(t, cp.Paused, "still paused")
	assert.Equal(t, "lunch", cp.PauseReason)

	h2 := newHarness(t).continued()
	var pending signals.Pending
	h2.at(time.Minute, func() {
		pending = query(h2, signals.PendingQuery)
		signal(h2, signals.Resume, signals.ControlRequest{})
	})
	res := h2.run(next)

	assert.Equal(t, signals.AwaitingResume, pending.Awaiting)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []string{"s2", "s3"}, h2.f.stepIDs())
}

func TestSignalCapContinuesTheWorkspaceWait(t *testing.T) {
	h := newHarness(t)
	h.f.acquire = func(activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
		return activities.AcquireWorkspaceOutput{}, busy()
	}
	h.at(10*time.Second, func() { flood(h, testSignalLimit) })
	req := autoReq()
	req.OnBusy = signals.OnBusyWait
	next := h.runToContinue(req, withSignalLimit(testSignalLimit))

	cp := next.Checkpoint
	require.NotNil(t, cp)
	assert.Equal(t, plan.PhaseAwaitingWorkspace, cp.Phase)
	assert.Nil(t, cp.Lease)
	assert.Equal(t, plan.DefaultWorkspace("default-test-workflow-id"), next.Workspace)
	require.NoError(t, next.Validate())

	h2 := newHarness(t).continued()
	res := h2.run(next)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.Len(t, h2.f.acquireIn, 1, "the continuation acquires")
	assert.True(t, h2.f.acquireIn[0].Own, "its own folder is still created when missing")
	assert.Equal(t, 1, h2.f.count("Clarify"))
}

func TestAFloodInOneTaskIsServedWhole(t *testing.T) {
	h := newHarness(t)
	const n = 2*signalsBetweenYields + 10
	h.at(time.Minute, func() { flood(h, n) })
	h.at(2*time.Minute, func() { signal(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 1}) })
	h.registerRun(withSignalLimit(n + 10))
	h.env.ExecuteWorkflow(signals.WorkflowType, manualReq())

	res := h.result()
	assert.Equal(t, signals.StatusCompleted, res.Status, "the selection after the flood lands")
	p := query(h, signals.PendingQuery)
	require.Len(t, p.Rejected, maxRejected, "the last rejections are kept")
	assert.Contains(t, p.Rejected[0].Reason, "both given")
}
