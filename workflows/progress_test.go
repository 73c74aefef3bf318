package workflows

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// attrLog records every search attribute upsert, per key, in order.
type attrLog struct {
	mu       sync.Mutex
	phases   []string
	awaiting []string
	progress []int64
	// progressAt is when (workflow time) each progress value was upserted.
	progressAt []time.Time
	goals      []string
	upserts    int
}

// watchAttributes mocks UpsertTypedSearchAttributes to record its values.
func watchAttributes(h *harness) *attrLog {
	l := &attrLog{}
	h.env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil).Run(func(args mock.Arguments) {
		sa := args.Get(0).(temporal.SearchAttributes)
		l.mu.Lock()
		defer l.mu.Unlock()
		l.upserts++
		if v, ok := sa.GetKeyword(signals.PhaseAttr); ok {
			l.phases = append(l.phases, v)
		}
		if v, ok := sa.GetKeyword(signals.AwaitingAttr); ok {
			l.awaiting = append(l.awaiting, v)
		}
		if v, ok := sa.GetInt64(signals.ProgressAttr); ok {
			l.progress = append(l.progress, v)
			l.progressAt = append(l.progressAt, h.env.Now())
		}
		if v, ok := sa.GetString(signals.GoalAttr); ok {
			l.goals = append(l.goals, v)
		}
	})
	return l
}

// noRepeats asserts that no value is upserted twice in a row.
func noRepeats[T comparable](t *testing.T, name string, vs []T) {
	t.Helper()
	for i := 1; i < len(vs); i++ {
		assert.NotEqual(t, vs[i-1], vs[i], "%s upserted unchanged at %d: %v", name, i, vs)
	}
}

func TestSearchAttributesFollowTheRun(t *testing.T) {
	h := newHarness(t)
	log := watchAttributes(h)
	h.selectAt(time.Minute)
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status)

	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, []string{
		"clarifying", "planning", "awaiting-selection", "executing", "summarizing", "completed",
	}, log.phases, "reflections do not flip the phase: two upserts a step that said nothing new")
	assert.Equal(t, []string{"none", "selection", "none"}, log.awaiting)
	assert.Equal(t, []int64{0, 33, 66, 100}, log.progress)
	assert.Equal(t, []string{"Add JWT authentication"}, log.goals, "the goal is set once, at the first upsert")
	noRepeats(t, "phase", log.phases)
	noRepeats(t, "awaiting", log.awaiting)
	noRepeats(t, "progress", log.progress)
}

// TestProgressOfQuickStepsIsHeldBackAtMostABound: five tool steps end
// at once, then an llm step runs for an hour. The percents of the quick
// steps are not upserted one by one; the timer upserts the last of them
// progressLag after it was held back, long before the slow step ends,
// and the end upserts 100.
func TestProgressOfQuickStepsIsHeldBackAtMostABound(t *testing.T) {
	h := newHarness(t)
	h.stepDelay = time.Hour
	log := watchAttributes(h)
	var steps []plan.Step
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		steps = append(steps, toolStep(id, plan.ToolListFiles, nil))
	}
	steps = append(steps, llmStep("slow"))
	for i := 1; i < len(steps); i++ {
		steps[i].DependsOn = []string{steps[i-1].ID}
	}
	h.f.onePlan(steps...)
	var start time.Time
	h.at(0, func() { start = h.env.Now() })
	h.at(30*time.Minute, func() {
		log.mu.Lock()
		defer log.mu.Unlock()
		require.NotEmpty(t, log.progress)
		last := len(log.progress) - 1
		assert.Equal(t, int64(83), log.progress[last], "five of six steps done, shown while the sixth runs")
		assert.LessOrEqual(t, log.progressAt[last].Sub(start), progressLag+time.Second, "held back at most the bound")
		assert.Less(t, len(log.progress), 5, "not one upsert a quick step: %v", log.progress)
	})
	res := h.run(autoReq())
	require.Equal(t, signals.StatusCompleted, res.Status)

	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, int64(100), log.progress[len(log.progress)-1])
	noRepeats(t, "progress", log.progress)
	for i := 1; i < len(log.progressAt); i++ {
		gap := log.progressAt[i].Sub(log.progressAt[i-1])
		assert.True(t, gap >= progressEvery || i == len(log.progressAt)-1 || gap == 0,
			"progress upserted %v after the one before (%v)", gap, log.progress)
	}
}

// TestProgressOfStepsASecondApartNeedsNoTimer: steps end every 600 ms.
// A percent held back is upserted by the run's next publish a second
// later, which cancels the timer: no flush timer fires, and every upsert
// falls on a step's end.
func TestProgressOfStepsASecondApartNeedsNoTimer(t *testing.T) {
	const every = 600 * time.Millisecond
	h := newHarness(t)
	h.stepDelay = every
	log := watchAttributes(h)
	h.f.onePlan(llmSteps(12)...)
	var start time.Time
	h.at(0, func() { start = h.env.Now() })
	var mu sync.Mutex
	flushes, fired := map[string]bool{}, 0
	h.env.SetOnTimerScheduledListener(func(id string, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		flushes[id] = d == progressLag
	})
	h.env.SetOnTimerFiredListener(func(id string) {
		mu.Lock()
		defer mu.Unlock()
		if flushes[id] {
			fired++
		}
	})
	res := h.run(autoReq())
	require.Equal(t, signals.StatusCompleted, res.Status)
	mu.Lock()
	assert.Zero(t, fired, "no flush timer fired: the run's own publishes upserted first")
	assert.NotEmpty(t, flushes, "percents were held back")
	mu.Unlock()

	log.mu.Lock()
	defer log.mu.Unlock()
	require.Greater(t, len(log.progress), 3)
	for i, at := range log.progressAt {
		off := at.Sub(start)
		assert.Zero(t, off%every, "progress %d upserted at %v, not at a step's end: a timer fired", log.progress[i], off)
	}
	assert.Less(t, len(log.progress), 12, "fewer upserts than steps: %v", log.progress)
}

func TestAwaitingShowsConfirmationAndResume(t *testing.T) {
	h := newHarness(t)
	log := watchAttributes(h)
	skipS2(h, 0.5)
	h.at(stepTime+10*time.Second, func() {
		signal(h, signals.Pause, signals.ControlRequest{})
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true})
	})
	h.at(10*time.Minute, func() { signal(h, signals.Resume, signals.ControlRequest{}) })
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, []string{"none", "confirmation", "resume", "none"}, log.awaiting)
}

// TestProgressMeasuresTimeAndWidth: two independent one-minute steps run
// side by side, then a third waits for both; the model gave no
// estimates. A pause asked for half way through the first two, and
// answered an hour later, shows as pausedFor (from the request to the
// resume), not as elapsed; the ETA comes from the measured durations, and the peak of
// steps at once is two.
func TestProgressMeasuresTimeAndWidth(t *testing.T) {
	h := newHarness(t)
	steps := []plan.Step{llmStep("s1"), llmStep("s2"), llmStep("s3", "s1", "s2")}
	for i := range steps {
		steps[i].Estimated = 0
	}
	h.f.onePlan(steps...)
	req := autoReq()
	req.Execution.Parallelism = 2
	h.at(stepTime/2, func() { signal(h, signals.Pause, signals.ControlRequest{Reason: "lunch"}) })
	h.at(stepTime+time.Hour, func() {
		p := query(h, signals.ProgressQuery)
		assert.True(t, p.Paused)
		assert.Equal(t, plan.Duration(time.Hour+stepTime/2), p.PausedFor, "paused since the request")
		assert.Equal(t, plan.Duration(stepTime/2), p.Elapsed, "running time only")
		assert.Equal(t, plan.Duration(stepTime), p.EstimatedRemaining, "one step left at the mean of one minute")
		assert.Equal(t, 2, p.MaxConcurrent)
		assert.Equal(t, 66, p.Percent)
		assert.Contains(t, currentDetails(h), "up to 2 steps at once")
		signal(h, signals.Resume, signals.ControlRequest{})
	})
	h.at(stepTime+time.Hour+stepTime/2, func() {
		p := query(h, signals.ProgressQuery)
		assert.False(t, p.Paused)
		assert.Equal(t, plan.Duration(time.Hour+stepTime/2), p.PausedFor, "the pause is over")
		assert.Equal(t, plan.Duration(stepTime), p.Elapsed)
	})
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, 2, res.Metrics.MaxConcurrent, "the Result says two steps ran side by side")
}
