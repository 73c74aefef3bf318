package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// digestingWorker makes h's GoalAttr answer as a worker that encrypts
// payloads does: a digest, never the goal.
func digestingWorker(h *harness) {
	h.f.goalAttr = func(in activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
		return activities.GoalAttrOutput{Value: "hmac:0123456789abcdef0123456789abcdef", Digest: true}, nil
	}
}

func TestPlanGoalHoldsWhatTheWorkerSays(t *testing.T) {
	h := newHarness(t)
	digestingWorker(h)
	log := watchAttributes(h)
	h.selectAt(time.Minute)
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	assert.Equal(t, []activities.GoalAttrInput{{Goal: "Add JWT authentication"}}, h.f.goalAttrIn, "asked once")
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, []string{"hmac:0123456789abcdef0123456789abcdef"}, log.goals,
		"the digest, set once with the first phase; the plaintext goal never")
	assert.Equal(t, "clarifying", log.phases[0])
}

func TestPlanGoalIsLeftUnsetWhenTheWorkerCannotSay(t *testing.T) {
	h := newHarness(t)
	h.f.goalAttr = func(activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
		return activities.GoalAttrOutput{}, errors.New("key file unreadable")
	}
	log := watchAttributes(h)
	res := h.run(autoReq())
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Empty(t, log.goals, "no plaintext fallback")
	assert.NotEmpty(t, log.phases, "the other attributes are kept current")
}

func TestContinuationAsksAgainForTheRequestsGoal(t *testing.T) {
	h := newHarness(t).continued()
	digestingWorker(h)
	log := watchAttributes(h)
	req := carriedReq()
	req.Checkpoint.Goal = "Add JWT authentication with refresh tokens (clarified)"
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	assert.Equal(t, []activities.GoalAttrInput{{Goal: req.Goal}}, h.f.goalAttrIn,
		"the goal a client searches for, not the clarified one")
	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Equal(t, []string{"hmac:0123456789abcdef0123456789abcdef"}, log.goals)
}
