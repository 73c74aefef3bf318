package workflows

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// events are the events of every marker the run wrote, in order.
func (l *commandLog) events(t *testing.T) []signals.Event {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var evs []signals.Event
	for _, b := range l.batches {
		assert.Equal(t, signals.EventLogName, b.Log)
		assert.True(t, len(b.Events) > 0 || b.Progress != nil, "no empty marker")
		evs = append(evs, b.Stamped()...)
	}
	return evs
}

// types are the types of evs.
func types(evs []signals.Event) []signals.EventType {
	var ts []signals.EventType
	for _, e := range evs {
		ts = append(ts, e.Type)
	}
	return ts
}

// TestTheLogTellsARunInOrder: a run's markers hold every event once, seq 1
// to the last without a gap, from its first phase to its end; each step
// started and ended; and the webhooks delivered are the log's webhook
// events, in the log's order: one source.
func TestTheLogTellsARunInOrder(t *testing.T) {
	h := newHarness(t)
	spy := watchCommands(h)
	skipS2(h, 0.5)
	h.selectAt(time.Minute)
	h.at(stepTime+90*time.Second, func() {
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false, By: "alice"})
	})
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status)

	evs := spy.events(t)
	require.NotEmpty(t, evs)
	for i, e := range evs {
		assert.Equal(t, int64(i+1), e.Seq, "event %d (%s)", i, e.Type)
		assert.False(t, e.At.IsZero())
		assert.NotEmpty(t, e.Message, "%s has a line", e.Type)
	}
	assert.Equal(t, signals.EventPhaseChanged, evs[0].Type)
	last := evs[len(evs)-1]
	assert.Equal(t, signals.EventEnded, last.Type)
	assert.JSONEq(t, `{"status":"completed","summary":"summary: completed"}`, string(last.Data))

	for _, s := range res.Plan.Steps {
		assert.Contains(t, stepEvents(evs, s.ID), signals.EventStepStarted, "step %s", s.ID)
		assert.Contains(t, stepEvents(evs, s.ID), signals.EventStepCompleted, "step %s", s.ID)
	}
	ts := types(evs)
	for _, want := range []signals.EventType{signals.EventOptionsReady, signals.EventAwaitingSelection,
		signals.EventOptionSelected, signals.EventAwaitingChanged, signals.EventReflectionDecided,
		signals.EventAwaitingConfirmation, signals.EventConfirmationAnswered, signals.EventUsage} {
		assert.Contains(t, ts, want)
	}
	answered := eventOf(t, evs, signals.EventConfirmationAnswered)
	assert.JSONEq(t, `{"requestId":"skip-1","stepIds":["s2"],"approved":false,"by":"alice","note":"denied by alice"}`, string(answered.Data))
	selected := eventOf(t, evs, signals.EventOptionSelected)
	assert.Contains(t, string(selected.Data), `"optionId":"r1-o1"`)

	var hooks []activities.NotifyEvent
	for _, e := range evs {
		if _, ok := webhook.FromLog(e.Type, ""); !ok {
			continue
		}
		var d activities.NotifyData
		if len(e.Data) > 0 {
			require.NoError(t, json.Unmarshal(e.Data, &d), "a webhook event's data is the body's")
		}
		w, _ := webhook.FromLog(e.Type, d.Status)
		hooks = append(hooks, w)
	}
	assert.Equal(t, hooks, h.f.events(), "the webhooks are the log's webhook events")
}

// stepEvents are the types of the events of step id.
func stepEvents(evs []signals.Event, id string) []signals.EventType {
	var ts []signals.EventType
	for _, e := range evs {
		if e.Step != nil && e.Step.ID == id {
			ts = append(ts, e.Type)
		}
	}
	return ts
}

// eventOf is the first event of type typ.
func eventOf(t *testing.T, evs []signals.Event, typ signals.EventType) signals.Event {
	t.Helper()
	for _, e := range evs {
		if e.Type == typ {
			return e
		}
	}
	t.Fatalf("no %s event", typ)
	return signals.Event{}
}

// TestTheLogGoesOnAcrossContinueAsNew: a continuation numbers its events
// after the run before it, carries its recent events, and does not tell
// the phase it carried over again.
func TestTheLogGoesOnAcrossContinueAsNew(t *testing.T) {
	h := newHarness(t)
	spy := watchCommands(h)
	h.env.SetCurrentHistoryLength(500)
	next := h.runToContinue(autoReq(), withHistoryLimit(100))
	first := spy.events(t)
	require.NotEmpty(t, first)
	cp := next.Checkpoint
	require.NotNil(t, cp)
	assert.Equal(t, first[len(first)-1].Seq, cp.EventSeq)
	assert.Equal(t, first, cp.RecentEvents, "a short log is carried whole")
	assert.Equal(t, plan.PhaseExecuting, cp.EventPhase)

	h2 := newHarness(t).continued()
	spy2 := watchCommands(h2)
	res := h2.run(next)
	require.Equal(t, signals.StatusCompleted, res.Status)
	second := spy2.events(t)
	require.NotEmpty(t, second)
	for i, e := range second {
		assert.Equal(t, cp.EventSeq+int64(i+1), e.Seq, "the continuation numbers on")
	}
	assert.NotEqual(t, signals.EventPhaseChanged, second[0].Type, "executing is not told twice")
	assert.Equal(t, signals.EventEnded, second[len(second)-1].Type)
}

// TestEventLogStateKeepsTheNewestWithinBounds: the recent events are the
// newest that fit the count and the bytes; After says whether they reach
// back to a follower's position.
func TestEventLogStateKeepsTheNewestWithinBounds(t *testing.T) {
	var st signals.EventLogState
	for i := 1; i <= signals.MaxRecentEvents+10; i++ {
		st.EventSeq = int64(i)
		st.Keep(signals.Event{Seq: int64(i), Type: signals.EventUsage, Message: "x"})
	}
	require.Len(t, st.RecentEvents, signals.MaxRecentEvents)
	assert.Equal(t, int64(11), st.RecentEvents[0].Seq)
	evs, whole := st.After(20)
	assert.True(t, whole)
	assert.Equal(t, int64(21), evs[0].Seq)
	_, whole = st.After(5)
	assert.False(t, whole, "events 6 to 10 were dropped")
	evs, whole = st.After(st.EventSeq)
	assert.True(t, whole)
	assert.Empty(t, evs)

	var big signals.EventLogState
	data := json.RawMessage(`{}`)
	for i := 1; i <= 100; i++ {
		big.Keep(signals.Event{Seq: int64(i), Message: strings.Repeat("m", signals.MaxEventMessageBytes), Data: data})
	}
	total := 0
	for _, e := range big.RecentEvents {
		total += len(e.Message)
	}
	assert.LessOrEqual(t, total, signals.MaxRecentEventBytes)
	assert.Equal(t, int64(100), big.RecentEvents[len(big.RecentEvents)-1].Seq, "the newest is kept")
	assert.Less(t, len(big.RecentEvents), 100, "the bytes bound them before the count does")
}

// TestTheLogCarriesTheRunsProgress: the log's batches carry the run's
// progress from its first one on, whenever the search attributes change
// and at least once in every signals.ProgressSnapshotEvery batches, but
// not once the run ended; while the run waits for a selection the newest
// one, brought to the time of a query (Progress.Since), is the query's
// answer; the newest one and the usage written after it add up to the
// Result's.
func TestTheLogCarriesTheRunsProgress(t *testing.T) {
	h := newHarness(t)
	// Steps quicker than progressEvery: most batches do not carry the
	// progress, and the events since must make up for it.
	h.stepDelay = 300 * time.Millisecond
	spy := watchCommands(h)
	h.selectAt(time.Minute)
	var waiting, asked signals.Progress
	h.at(30*time.Second, func() {
		asked = query(h, signals.ProgressQuery)
		waiting = newestProgress(t, spy, h.env.Now())
	})
	// While it executes, steps start and end between the batches that
	// carry the progress: the events since count them.
	type pair struct{ asked, logged signals.Progress }
	var executing []pair
	for d := time.Minute + 50*time.Millisecond; d < time.Minute+5*time.Second; d += 100 * time.Millisecond {
		h.at(d, func() {
			q := query(h, signals.ProgressQuery)
			if q.Phase == plan.PhaseExecuting || q.Phase == plan.PhaseReflecting {
				executing = append(executing, pair{q, newestProgress(t, spy, h.env.Now())})
			}
		})
	}
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status)

	assert.Equal(t, signals.AwaitingSelection, asked.Awaiting)
	assert.Equal(t, asked, waiting, "the log stands where the query does")
	require.GreaterOrEqual(t, len(executing), 5)
	for _, p := range executing {
		assert.Equal(t, p.asked.Totals, p.logged.Totals, "steps counted from the events since")
		assert.Equal(t, p.asked.Percent, p.logged.Percent)
		assert.Equal(t, p.asked.CurrentStep, p.logged.CurrentStep)
		assert.Equal(t, p.asked.Usage, p.logged.Usage)
		assert.Equal(t, p.asked.Phase, p.logged.Phase)
	}

	spy.mu.Lock()
	batches := slices.Clone(spy.batches)
	spy.mu.Unlock()
	require.NotEmpty(t, batches)
	require.NotNil(t, batches[0].Progress, "the first batch carries the progress")
	since := 0
	var phases []plan.Phase
	for _, b := range batches {
		if b.Progress == nil {
			since++
			assert.Less(t, since, signals.ProgressSnapshotEvery, "a batch with the progress at least every %d", signals.ProgressSnapshotEvery)
			continue
		}
		since = 0
		if len(phases) == 0 || phases[len(phases)-1] != b.Progress.Phase {
			phases = append(phases, b.Progress.Phase)
		}
	}
	for _, ph := range []plan.Phase{plan.PhaseAwaitingSelection, plan.PhaseExecuting, plan.PhaseSummarizing} {
		assert.Contains(t, phases, ph)
	}
	for _, ph := range phases {
		assert.False(t, ph.Terminal(), "an ended run is read from its Result, not its log")
	}
	assert.Equal(t, res.Usage, newestProgress(t, spy, h.env.Now()).Usage, "the newest progress and the usage since are the run's")
}

// newestProgress is the newest progress the run's log carries, brought to
// now with the events written after it.
func newestProgress(t *testing.T, l *commandLog, now time.Time) signals.Progress {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var later []signals.Event
	for i := len(l.batches) - 1; i >= 0; i-- {
		b := l.batches[i]
		if b.Progress != nil {
			return signals.Progress(*b.Progress).Since(b.At, now, later)
		}
		later = append(b.Stamped(), later...)
	}
	t.Fatal("no batch carries the progress")
	return signals.Progress{}
}

// TestAPauseGoesInTheLogAtOnce: a pause changes no search attribute of a
// plan waiting for its selection, yet the log's newest progress says it
// at once, as the query does, and says the resume too.
func TestAPauseGoesInTheLogAtOnce(t *testing.T) {
	h := newHarness(t)
	spy := watchCommands(h)
	h.at(20*time.Second, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "review first"}) })
	var paused, pausedAsked, resumed, resumedAsked signals.Progress
	h.at(30*time.Second, func() {
		pausedAsked, paused = query(h, signals.ProgressQuery), newestProgress(t, spy, h.env.Now())
	})
	h.at(40*time.Second, func() { signal(h, signals.Resume, signals.ControlRequest{Reason: "reviewed"}) })
	h.at(50*time.Second, func() {
		resumedAsked, resumed = query(h, signals.ProgressQuery), newestProgress(t, spy, h.env.Now())
	})
	h.selectAt(time.Minute)
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status)
	require.True(t, pausedAsked.Paused)
	assert.Equal(t, pausedAsked, paused)
	require.False(t, resumedAsked.Paused)
	assert.Equal(t, resumedAsked, resumed)
}
