package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
)

// TestProgressSinceAddsUsageAndTime: the usage events written after a
// progress add up into it (other events and undecodable data change
// nothing); the time since counts as elapsed, as paused while paused, and
// not at all once the run ended.
func TestProgressSinceAddsUsageAndTime(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	now := at.Add(time.Minute)
	p := Progress{Phase: plan.PhaseExecuting, Elapsed: plan.Duration(time.Hour), Usage: plan.Usage{TotalTokens: 10, CostUSD: 1, Calls: 1},
		Tokens: 10, CostUSD: 1}
	later := []Event{
		{Type: EventUsage, Data: []byte(`{"phase":"execute","promptTokens":5,"completionTokens":2,"totalTokens":7,"costUSD":0.5,"calls":2}`)},
		{Type: EventStepCompleted, Data: []byte(`{"percent":50}`)},
		{Type: EventUsage, Data: []byte(`not json`)},
	}
	got := p.Since(at, now, later)
	assert.Equal(t, plan.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 17, CostUSD: 1.5, Calls: 3}, got.Usage)
	assert.Equal(t, 17, got.Tokens)
	assert.InDelta(t, 1.5, got.CostUSD, 1e-9)
	assert.Equal(t, plan.Duration(time.Hour+time.Minute), got.Elapsed)
	assert.Equal(t, plan.Duration(time.Hour), p.Elapsed, "p itself is not changed")

	p.Paused = true
	got = p.Since(at, now, nil)
	assert.Equal(t, plan.Duration(time.Hour), got.Elapsed)
	assert.Equal(t, plan.Duration(time.Minute), got.PausedFor)

	p.Paused, p.Phase = false, plan.PhaseCompleted
	assert.Equal(t, plan.Duration(time.Hour), p.Since(at, now, nil).Elapsed, "an ended run's time stands still")
}

// TestLoggedProgressLeavesOutZeros: a batch's progress is written without
// its zero fields and reads back as the Progress it was.
func TestLoggedProgressLeavesOutZeros(t *testing.T) {
	p := Progress{Phase: plan.PhaseExecuting, Mode: plan.ModeAct, Awaiting: AwaitingNone,
		CurrentStep: &StepRef{ID: "s2", Number: 2, Title: "Two"}, Totals: plan.Totals{Total: 3, Completed: 1, Running: 1, Pending: 1},
		Percent: 33, StartedAt: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Elapsed: plan.Duration(time.Minute),
		Usage: plan.Usage{TotalTokens: 5, CostUSD: 0.25}, Tokens: 5, CostUSD: 0.25}
	b, err := json.Marshal(LoggedProgress(p))
	assert.NoError(t, err)
	for _, zero := range []string{`"paused"`, `"failed"`, `"pausedFor"`, `"estimatedRemaining"`, `"lastError"`, `"calls"`, `"offline"`} {
		assert.NotContains(t, string(b), zero)
	}
	full, _ := json.Marshal(p)
	assert.Less(t, len(b), len(full))
	var back Progress
	assert.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, p, back)
}
