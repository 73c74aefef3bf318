package signals

import (
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
