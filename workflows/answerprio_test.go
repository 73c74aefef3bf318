package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// priorities are the PlanPriority calls the run made, in order.
func (f *fakes) priorities() []activities.PlanPriorityInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]activities.PlanPriorityInput(nil), f.priorityIn...)
}

// TestAPlanWaitingForAPersonRunsOneKeyHigher: a run raises its task
// priority one key while it waits for its selection, keeping its fairness
// key, and lowers it to its own once the selection came; it asks while it
// waits, not after.
func TestAPlanWaitingForAPersonRunsOneKeyHigher(t *testing.T) {
	h := newHarness(t)
	h.selectAt(time.Minute)
	var during []activities.PlanPriorityInput
	h.at(30*time.Second, func() { during = h.f.priorities() })
	req := manualReq()
	req.Tenant = "acme"
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status)

	own := signals.PriorityKey(req.Priority)
	raised := activities.PlanPriorityInput{Key: own - 1, FairnessKey: "acme"}
	back := activities.PlanPriorityInput{Key: own, FairnessKey: "acme"}
	assert.Equal(t, []activities.PlanPriorityInput{raised}, during, "raised while it waits")
	assert.Equal(t, []activities.PlanPriorityInput{raised, back}, h.f.priorities(), "its own again once it goes on")
}

// TestAPlanNobodyWaitsOnKeepsItsPriority: a plan that selects on its own
// and asks nobody anything never changes its priority; a critical plan
// waiting for a person stays at the critical key (there is none higher)
// and asks the server nothing.
func TestAPlanNobodyWaitsOnKeepsItsPriority(t *testing.T) {
	h := newHarness(t)
	res := h.run(autoReq())
	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Empty(t, h.f.priorities())

	p := answerPriority{own: temporal.Priority{PriorityKey: signals.PriorityKey(plan.PriorityCritical)}}
	assert.Equal(t, signals.PriorityKeyCritical, p.input(true).Key)

	h = newHarness(t)
	h.selectAt(time.Minute)
	req := manualReq()
	req.Priority = plan.PriorityCritical
	res = h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Empty(t, h.f.priorities(), "a critical plan waiting asks for nothing")
}
