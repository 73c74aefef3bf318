package view

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestAwaitingMostPressingFirst(t *testing.T) {
	st := &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseAwaitingSelection},
		InputState:     signals.InputState{Paused: true},
		ExecutionState: signals.ExecutionState{SkipConfirmations: []signals.SkipConfirmation{{RequestID: "skip-1"}}}}
	r := Run{State: st, Request: &signals.StartRequest{}, Selecting: true,
		Clarify: Clarification{Waiting: true}, WorkspaceWait: &signals.WorkspaceWait{Workspace: "a"}}
	for _, want := range []signals.Awaiting{signals.AwaitingWorkspace, signals.AwaitingClarification,
		signals.AwaitingSelection, signals.AwaitingConfirmation, signals.AwaitingResume, signals.AwaitingNone} {
		assert.Equal(t, want, Awaiting(r))
		switch want {
		case signals.AwaitingWorkspace:
			r.WorkspaceWait = nil
		case signals.AwaitingClarification:
			r.Clarify.Waiting = false
		case signals.AwaitingSelection:
			r.Selecting = false
		case signals.AwaitingConfirmation:
			st.SkipConfirmations = nil
		case signals.AwaitingResume:
			st.Paused = false
		}
	}
	r.Selecting, r.Refining = true, true
	assert.Equal(t, signals.AwaitingNone, Awaiting(r), "no selection is taken while refining")
	st.Phase, st.Paused = plan.PhaseCompleted, true
	assert.Equal(t, signals.AwaitingNone, Awaiting(r), "a finished run waits for nothing")
}

func TestProgressCountsRunningTimeApartFromPausedTime(t *testing.T) {
	start := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	pausedAt := start.Add(40 * time.Minute)
	steps := llmSteps(4)
	steps[0].Status, steps[1].Status = plan.StepCompleted, plan.StepRunning
	st := &signals.Checkpoint{
		CycleState:     signals.CycleState{Phase: plan.PhaseExecuting, StartedAt: start, Usage: plan.Usage{TotalTokens: 42, CostUSD: 0.5}},
		InputState:     signals.InputState{PausedFor: plan.Duration(5 * time.Minute), PausedAt: &pausedAt, Paused: true},
		ExecutionState: signals.ExecutionState{MaxConcurrent: 2, Plan: &plan.Plan{Steps: steps}}}
	p := Progress(Run{State: st, Request: &signals.StartRequest{}}, start.Add(time.Hour))

	assert.Equal(t, plan.Duration(25*time.Minute), p.PausedFor, "5 minutes before and 20 since the pause")
	assert.Equal(t, plan.Duration(35*time.Minute), p.Elapsed)
	assert.Equal(t, plan.ModePaused, p.Mode)
	assert.Equal(t, signals.AwaitingResume, p.Awaiting)
	assert.Equal(t, 25, p.Percent)
	assert.Equal(t, 4, p.Totals.Total)
	require.NotNil(t, p.CurrentStep)
	assert.Equal(t, "s2", p.CurrentStep.ID)
	assert.Equal(t, 42, p.Tokens)
	assert.Equal(t, 2, p.MaxConcurrent)
}

func TestPendingListsWhatTheRunWaitsFor(t *testing.T) {
	dl := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r := *selectingRun()
	r.Request.Selection.OnTimeout = signals.OnTimeoutCancel
	r.State.Options.SelectionTimeout = &dl
	r.Clarify = Clarification{Questions: []string{"a?", "b?"}, Answers: map[string]string{"a?": "yes"}, Waiting: true, Deadline: &dl}
	p := Pending(r)

	require.NotNil(t, p.Selection)
	assert.Equal(t, []string{"r1-o1", "r1-o2"}, p.Selection.OptionIDs)
	assert.Equal(t, string(signals.OnTimeoutCancel), p.Selection.OnTimeout)
	require.NotNil(t, p.Clarification)
	assert.Equal(t, []string{"b?"}, p.Clarification.Questions, "answered questions are not pending")
	assert.Nil(t, p.SkipConfirmations, "nil when none is open")

	r.State.SkipConfirmations = []signals.SkipConfirmation{{RequestID: "skip-1"}}
	p = Pending(r)
	r.State.SkipConfirmations[0].RequestID = "changed"
	assert.Equal(t, "skip-1", p.SkipConfirmations[0].RequestID, "the answer is a copy")
}

func TestPlanValidatesAgainstTheRunsLimits(t *testing.T) {
	st := &signals.Checkpoint{ExecutionState: signals.ExecutionState{Plan: &plan.Plan{Steps: llmSteps(3)}}}
	assert.Equal(t, signals.PlanView{}, Plan(Run{State: &signals.Checkpoint{}}))
	assert.True(t, Plan(Run{State: st}).Validation.Valid)
	assert.False(t, Plan(Run{State: st, Limits: plan.Limits{MaxSteps: 2}}).Validation.Valid, "3 steps over a limit of 2")
}

// longRun is a run executing a plan of n steps, the first half done.
func longRun(n int) Run {
	steps := llmSteps(n)
	for i := range steps[:n/2] {
		steps[i].Status = plan.StepCompleted
		steps[i].Result = &plan.StepResult{Success: true, Output: fmt.Sprintf("output of step %d\nmore", i), Attempts: 1}
	}
	return Run{WorkflowID: "plan-bench", Request: &signals.StartRequest{},
		State: &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseExecuting, Goal: "g"},
			ExecutionState: signals.ExecutionState{Plan: &plan.Plan{Title: "P", Steps: steps}}}}
}

// BenchmarkDetails measures the Web UI details of a plan of 10, 100 and
// 1,000 steps: the table is bounded, the totals walk every step.
func BenchmarkDetails(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			r := longRun(n)
			b.ReportAllocs()
			for b.Loop() {
				if len(Details(r)) == 0 {
					b.Fatal("no details")
				}
			}
		})
	}
}

// BenchmarkProgress measures the progress query's answer at 10, 100 and
// 1,000 steps.
func BenchmarkProgress(b *testing.B) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			r := longRun(n)
			b.ReportAllocs()
			for b.Loop() {
				if p := Progress(r, now); p.Totals.Total != n {
					b.Fatalf("totals %d, want %d", p.Totals.Total, n)
				}
			}
		})
	}
}
