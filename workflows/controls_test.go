package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestPauseTakesEffectAtStepBoundaryAndResumeContinues(t *testing.T) {
	h := newHarness(t)
	var paused *outcome[signals.ControlState]
	var resumed *outcome[signals.ControlState]
	var pending signals.Pending
	var prog signals.Progress
	var view signals.PlanView
	h.at(30*time.Second, func() { paused = update(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
	h.at(10*time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		prog = query(h, signals.ProgressQuery)
		view = query(h, signals.PlanQuery)
		resumed = update(h, signals.Resume, signals.ControlRequest{})
	})
	start := h.env.Now()
	res := h.run(autoReq())

	got := requireAccepted(t, paused)
	assert.True(t, got.Paused)
	assert.Equal(t, plan.ModePaused, got.Mode)
	assert.Equal(t, "lunch", got.Reason)

	assert.True(t, pending.Paused)
	assert.Equal(t, signals.AwaitingResume, pending.Awaiting)
	assert.Equal(t, plan.ModePaused, prog.Mode)
	assert.Nil(t, prog.CurrentStep, "the running step finished; none started")
	assert.Equal(t, plan.PlanPaused, view.Plan.Status)
	assert.Equal(t, plan.StepCompleted, view.Plan.StepByID("s1").Status)
	assert.Equal(t, plan.StepPending, view.Plan.StepByID("s2").Status)

	assert.False(t, requireAccepted(t, resumed).Paused)
	require.Equal(t, signals.StatusCompleted, res.Status)
	s2 := res.Plan.StepByID("s2")
	assert.Equal(t, 10*time.Minute, s2.StartedAt.Sub(start), "s2 starts on resume")
}

func TestPauseAndResumeBySignal(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	h.at(30*time.Second, func() { signal(h, signals.Pause, signals.ControlRequest{}) })
	h.at(5*time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		signal(h, signals.Resume, signals.ControlRequest{})
	})
	res := h.run(autoReq())

	assert.True(t, pending.Paused)
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestPauseAndResumeRejections(t *testing.T) {
	h := newHarness(t)
	var resumeEarly, pauseTwice *outcome[signals.ControlState]
	h.at(10*time.Second, func() { resumeEarly = update(h, signals.Resume, signals.ControlRequest{}) })
	h.at(20*time.Second, func() { signal(h, signals.Pause, signals.ControlRequest{}) })
	h.at(30*time.Second, func() { pauseTwice = update(h, signals.Pause, signals.ControlRequest{}) })
	h.at(5*time.Minute, func() { signal(h, signals.Resume, signals.ControlRequest{}) })
	res := h.run(autoReq())

	requireRejected(t, resumeEarly, "not paused")
	requireRejected(t, pauseTwice, "already paused")
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestEditPlanDuringExecution(t *testing.T) {
	h := newHarness(t)
	var appended, locked *outcome[signals.EditPlanResponse]
	h.at(30*time.Second, func() {
		appended = update(h, signals.EditPlan, signals.EditPlanRequest{Reason: "add docs",
			Edits: []plan.Edit{{Op: plan.OpAppend, Step: newStep("docs", "s3")}}})
		locked = update(h, signals.EditPlan, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s1"}}})
		signal(h, signals.EditPlan, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpUpdate, StepID: "ghost", Step: &plan.Step{Title: "x"}}}})
		signal(h, signals.EditPlan, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpUpdate, StepID: "s3", Step: &plan.Step{Title: "Ship it"}}}})
	})
	res := h.run(autoReq())

	got := requireAccepted(t, appended)
	assert.Equal(t, 2, got.Version)
	require.NotNil(t, got.Plan.StepByID("docs"))
	requireRejected(t, locked, "STEP_LOCKED")

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s2", "s3", "docs"}, h.f.stepIDs())
	assert.Equal(t, "Ship it", res.Plan.StepByID("s3").Title)
	assert.Equal(t, 3, res.Plan.Version)
	var users int
	for _, u := range res.Plan.UpdateHistory {
		if u.Actor == plan.ActorUser {
			users++
		}
	}
	assert.Equal(t, 2, users)
	assert.True(t, hasRejection(query(h, signals.PendingQuery), "edit-plan", "ghost"))
}

func TestEditPlanRejectedBeforeSelection(t *testing.T) {
	h := newHarness(t)
	var early *outcome[signals.EditPlanResponse]
	var empty *outcome[signals.EditPlanResponse]
	h.at(30*time.Second, func() {
		early = update(h, signals.EditPlan, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpAppend, Step: newStep("x")}}})
	})
	h.selectAt(time.Minute)
	h.at(90*time.Second, func() { empty = update(h, signals.EditPlan, signals.EditPlanRequest{}) })
	res := h.run(manualReq())

	requireRejected(t, early, "no plan selected yet")
	requireRejected(t, empty, "no edits")
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestBudgetStop(t *testing.T) {
	cases := []struct {
		name   string
		budget signals.Budget
		want   string
	}{
		// Clarify 5 + options 20 + 10 per step: over 40 after s2.
		{"tokens", signals.Budget{MaxTokens: 40}, "tokens"},
		{"cost", signals.Budget{MaxCostUSD: 0.015}, "cost"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
				return plan.StepResult{Success: true, Usage: plan.Usage{TotalTokens: 10, CostUSD: 0.01}}, nil
			}
			req := autoReq()
			req.Budget = tc.budget
			res := h.run(req)

			assert.Equal(t, signals.StatusFailed, res.Status)
			assert.Equal(t, tc.want, res.BudgetExceeded)
			assert.Contains(t, res.Error, "budget exceeded")
			assert.Equal(t, []string{"s1", "s2"}, h.f.stepIDs())
			s3 := res.Plan.StepByID("s3")
			assert.Equal(t, plan.StepCancelled, s3.Status)
			assert.Contains(t, s3.Note, "budget exceeded")
			assert.Equal(t, "summary: failed", res.Summary)
		})
	}
}

func TestBudgetPauseThenResumeWaivesIt(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Budget = signals.Budget{MaxTokens: 40, OnExceed: signals.BudgetPause}
	var pending signals.Pending
	var resumed *outcome[signals.ControlState]
	h.at(10*time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		resumed = update(h, signals.Resume, signals.ControlRequest{Reason: "approved overrun"})
	})
	res := h.run(req)

	assert.True(t, pending.Paused)
	assert.Equal(t, signals.AwaitingResume, pending.Awaiting)
	assert.False(t, requireAccepted(t, resumed).Paused)
	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Empty(t, res.BudgetExceeded)
	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Contains(t, query(h, signals.ProgressQuery).LastError, "budget exceeded")
}

func TestRollback(t *testing.T) {
	h := newHarness(t)
	req := manualReq()
	req.Workspace = "/srv/repo"
	var early, during *outcome[signals.RollbackResponse]
	h.at(30*time.Second, func() { early = rollbackUpdate(h) })
	h.selectAt(time.Minute)
	h.at(90*time.Second, func() { during = rollbackUpdate(h) })
	res := h.run(req)

	requireRejected(t, early, "once execution has started")
	got := requireAccepted(t, during)
	assert.Equal(t, []string{"main.go"}, got.Restored)
	assert.Equal(t, []string{"new.go"}, got.Removed)
	assert.Equal(t, 1, h.f.count("RestoreWorkspace"))
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestProgressDuringExecution(t *testing.T) {
	h := newHarness(t)
	var prog signals.Progress
	var view signals.PlanView
	h.at(stepTime+30*time.Second, func() {
		prog = query(h, signals.ProgressQuery)
		view = query(h, signals.PlanQuery)
	})
	h.run(autoReq())

	assert.Equal(t, plan.PhaseExecuting, prog.Phase)
	assert.Equal(t, plan.ModeAct, prog.Mode)
	require.NotNil(t, prog.CurrentStep)
	assert.Equal(t, "s2", prog.CurrentStep.ID)
	assert.Equal(t, 2, prog.CurrentStep.Number)
	assert.Equal(t, 1, prog.Totals.Completed)
	assert.Equal(t, 1, prog.Totals.Running)
	assert.Equal(t, 33, prog.Percent)
	assert.Equal(t, plan.Duration(stepTime+30*time.Second), prog.Elapsed)
	assert.Equal(t, plan.Duration(2*time.Minute), prog.EstimatedRemaining)
	assert.Equal(t, 5+20+10, prog.Tokens)
	require.NotNil(t, view.Plan)
	assert.True(t, view.Validation.Valid)
	assert.Equal(t, plan.StepRunning, view.Plan.StepByID("s2").Status)
}
