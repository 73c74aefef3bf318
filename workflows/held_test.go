package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestSkipConfirmationHoldsOnlyDependents: s1, then s2 → s4, and s3 on
// its own. After s1 a reflection asks a person to confirm skipping s2.
// While nobody answers, s3 runs and ends; s2 and s4 wait. The approval
// skips s2 and lets s4 run.
func TestSkipConfirmationHoldsOnlyDependents(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(llmStep("s1"), llmStep("s2", "s1"), llmStep("s3"), llmStep("s4", "s2"))
	afterFirst(h, plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s2"}, Reason: "done already", Confidence: 0.1})
	h.at(time.Hour, func() {
		pv := query(h, signals.PlanQuery)
		assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepPending,
			"s3": plan.StepCompleted, "s4": plan.StepPending}, statuses(pv.Plan), "the independent step ran")
		pending := query(h, signals.PendingQuery)
		require.Len(t, pending.SkipConfirmations, 1)
		assert.Equal(t, signals.AwaitingConfirmation, pending.Awaiting)
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: pending.SkipConfirmations[0].RequestID, Approve: true})
	})
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepSkipped,
		"s3": plan.StepCompleted, "s4": plan.StepCompleted}, statuses(res.Plan))
	assert.Equal(t, []string{"s1", "s3", "s4"}, h.f.stepIDs())
	s4 := res.Plan.StepByID("s4")
	require.NotNil(t, s4.StartedAt)
	assert.GreaterOrEqual(t, s4.StartedAt.Sub(*res.Plan.StepByID("s3").EndedAt), time.Hour-2*stepTime,
		"s4 waited for the answer")
}

// TestSkipConfirmationDeniedRunsHeldSteps: a denial lets the held steps
// run in order.
func TestSkipConfirmationDeniedRunsHeldSteps(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(llmStep("s1"), llmStep("s2", "s1"), llmStep("s3"))
	afterFirst(h, plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s2"}, Reason: "maybe", Confidence: 0.1})
	h.at(time.Hour, func() {
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false})
	})
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s3", "s2"}, h.f.stepIDs())
}
