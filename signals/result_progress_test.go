package signals

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
)

func TestResultProgressTellsTheEnd(t *testing.T) {
	started := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	p := &plan.Plan{Steps: []plan.Step{{ID: "s1", Status: plan.StepCompleted}, {ID: "s2", Status: plan.StepFailed}}}
	res := Result{Status: StatusFailed, Plan: p, Error: "s2 failed", StartedAt: &started,
		Elapsed: plan.Duration(time.Minute), PausedFor: plan.Duration(time.Second), Tokens: 12,
		Metrics: plan.Metrics{MaxConcurrent: 2}}
	got := res.Progress()
	assert.Equal(t, plan.PhaseFailed, got.Phase)
	assert.Equal(t, plan.ModeNormal, got.Mode)
	assert.Equal(t, AwaitingNone, got.Awaiting)
	assert.Equal(t, started, got.StartedAt)
	assert.Equal(t, plan.Duration(time.Minute), got.Elapsed)
	assert.Equal(t, plan.Duration(time.Second), got.PausedFor)
	assert.Equal(t, "s2 failed", got.LastError)
	assert.Equal(t, 12, got.Tokens)
	assert.Equal(t, 2, got.MaxConcurrent)
	assert.Equal(t, p.Progress().Totals(), got.Totals)
	assert.Nil(t, got.CurrentStep)
}

func TestStatusPhase(t *testing.T) {
	for s, want := range map[Status]plan.Phase{StatusCompleted: plan.PhaseCompleted, StatusAnswered: plan.PhaseCompleted,
		StatusCancelled: plan.PhaseCancelled, StatusFailed: plan.PhaseFailed, "": plan.PhaseFailed} {
		assert.Equal(t, want, s.Phase(), s)
	}
}
