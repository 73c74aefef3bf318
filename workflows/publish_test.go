package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestDetailsAreRebuiltWhenDue: the current details are rebuilt at once
// when what the operator acts on changes, and otherwise at most every
// detailsEvery of workflow time.
func TestDetailsAreRebuiltWhenDue(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	key := detailsKey{phase: plan.PhaseExecuting, started: 3}
	shown := shownDetails{key: key, at: t0, shown: true}
	cases := []struct {
		name string
		d    shownDetails
		key  func(detailsKey) detailsKey
		at   time.Time
		want bool
	}{
		{"none built yet", shownDetails{}, same, t0, true},
		{"nothing new, at once", shown, same, t0, false},
		{"nothing new, within the bound", shown, same, t0.Add(detailsEvery - time.Millisecond), false},
		{"nothing new, once the bound passed", shown, same, t0.Add(detailsEvery), true},
		{"a step started", shown, func(k detailsKey) detailsKey { k.started++; return k }, t0, true},
		{"a new phase", shown, func(k detailsKey) detailsKey { k.phase = plan.PhaseSummarizing; return k }, t0, true},
		{"a skip to confirm", shown, func(k detailsKey) detailsKey {
			k.skipSeq, k.skips, k.awaiting = 1, 1, signals.AwaitingConfirmation
			return k
		}, t0, true},
		{"paused", shown, func(k detailsKey) detailsKey { k.paused = true; return k }, t0, true},
		{"a refused input", shown, func(k detailsKey) detailsKey {
			k.lastRefuse = signals.Rejection{Name: signals.Pause.Name, Reason: "already paused"}
			return k
		}, t0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.d.due(tc.key(key), tc.at))
		})
	}
}

func same(k detailsKey) detailsKey { return k }
