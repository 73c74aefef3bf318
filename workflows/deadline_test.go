package workflows

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestDeadlineStopsTheRun: three chained one-minute steps and a deadline
// half way through the third. The third is cancelled while it runs, no
// step starts after it, and the run fails with the reason and a partial
// summary.
func TestDeadlineStopsTheRun(t *testing.T) {
	h := newHarness(t)
	h.at(2*stepTime+stepTime/4, func() {
		p := query(h, signals.ProgressQuery)
		require.NotNil(t, p.CurrentStep)
		assert.Equal(t, "s3", p.CurrentStep.ID, "the third step runs before the deadline")
	})
	req := autoReq()
	req.Deadline = "150s"
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Regexp(t, `^deadline reached at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`, res.Error)
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepCompleted, "s3": plan.StepCancelled},
		statuses(res.Plan))
	assert.Contains(t, res.Plan.StepByID("s3").Note, "deadline reached")
	// The third step's activity was cancelled before its mock answered.
	assert.Equal(t, 2, h.f.count("ExecuteLLMStep"))
	require.Equal(t, 1, h.f.count("Summarize"))
	assert.True(t, h.f.summarizeIn[0].Partial, "the summary is partial")
	assert.Equal(t, "summary: failed", res.Summary)
}

// TestDeadlineCancelsTheCommandOfAPlanHandedIn: a plan handed in with one
// command step that takes ten seconds, and a deadline of three. At the
// deadline the step's activity is cancelled, the step ends cancelled with
// the reason, and the run fails with the reason and a partial summary,
// before the command would have ended.
//
// This is the workflow's half: it asks for the cancellation at the
// deadline. The test environment settles a cancelled activity at once;
// on a server the workflow waits for the activity to acknowledge it
// (WaitForCancellation), which the activity does only once a heartbeat's
// answer tells it, so the worker must send heartbeats promptly
// (planworker.HeartbeatThrottle).
func TestDeadlineCancelsTheCommandOfAPlanHandedIn(t *testing.T) {
	h := newHarness(t)
	var answered atomic.Bool
	h.env.OnActivity(a.RunTool, mockAny, mockAny).After(10 * time.Second).Return(
		func(_ contextT, in activities.ToolInput) (activities.ToolOutput, error) {
			answered.Store(true)
			return activities.ToolOutput{Success: true, Output: "made", CommandsRun: 1}, nil
		}).Once()
	req := manualReq()
	req.Plan = &signals.ExternalPlan{Title: "Make", Steps: []plan.Step{
		toolStep("make", plan.ToolRunCommand, map[string]any{"command": "make"}),
	}}
	req.Workspace = "/srv/ws"
	req.Deadline = "3s"
	start := h.env.Now()
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status, res.Error)
	assert.Regexp(t, `^deadline reached at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`, res.Error)
	require.NotNil(t, res.Plan)
	s := res.Plan.StepByID("make")
	require.NotNil(t, s)
	assert.Equal(t, plan.StepCancelled, s.Status, "the command step is cancelled at the deadline: %s", s.Note)
	assert.Contains(t, s.Note, "deadline reached")
	assert.False(t, answered.Load(), "the command's activity was cancelled before it answered")
	assert.Less(t, h.env.Now().Sub(start), 10*time.Second, "the run ends at its deadline, not when the command would have")
	require.Equal(t, 1, h.f.count("Summarize"))
	assert.True(t, h.f.summarizeIn[0].Partial, "the summary is partial")
}

// TestDeadlineWhileWaitingForSelection ends a run that still waits for a
// person at its deadline, failed, without running a step.
func TestDeadlineWhileWaitingForSelection(t *testing.T) {
	h := newHarness(t)
	req := manualReq()
	req.Deadline = "2h"
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "deadline reached at")
	assert.Nil(t, res.Plan)
	assert.Zero(t, h.f.count("ExecuteLLMStep"))
	assert.Equal(t, 1, h.f.count("Summarize"))
}

// TestDeadlineNotReached: a run that ends before its deadline completes
// as usual, the pending timer notwithstanding.
func TestDeadlineNotReached(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Deadline = "1h"
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Empty(t, res.Error)
}

// TestDeadlineOutOfBounds fails a run whose deadline is a time more than
// 30 days after its start as an invalid request.
func TestDeadlineOutOfBounds(t *testing.T) {
	h := newHarness(t)
	h.register()
	req := autoReq()
	req.Deadline = signals.Deadline(h.env.Now().Add(31 * 24 * time.Hour).Format(time.RFC3339))
	h.env.ExecuteWorkflow(PlanMode, req)
	require.True(t, h.env.IsWorkflowCompleted())
	err := h.env.GetWorkflowError()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most 720h0m0s after the start")
	assert.Zero(t, h.f.count("Clarify"))
}
