package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestRescuedStepSaysSo fails a step twice and lets its fallback succeed:
// the step stays completed, and its note, the plan query, the Result and
// the Web UI details say that fallback fb rescued it and from what.
func TestRescuedStepSaysSo(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.MaxRetries = 1
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"))
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		if in.Context.Step.ID == "s1" {
			return plan.StepResult{Error: "boom"}, nil
		}
		return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	s1 := res.Plan.StepByID("s1")
	assert.Equal(t, plan.StepCompleted, s1.Status)
	assert.Equal(t, "fb", s1.RescuedBy())
	assert.Equal(t, "rescued by fallback fb after: boom", s1.Note)
	view := query(h, signals.PlanQuery)
	assert.Equal(t, "rescued by fallback fb after: boom", view.Plan.StepByID("s1").Note)
	assert.Contains(t, currentDetails(h), "| ✓ completed (fallback `fb`) | Step s1 | llm | 1 |")
	assert.Contains(t, currentDetails(h), "| rescued by fallback fb after: boom |")
}

// TestFailedFallbackSaysSo fails a step and its fallback: the step fails
// with the fallback's error and its note keeps its own.
func TestFailedFallbackSaysSo(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"))
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Error: "boom " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusFailed, res.Status)
	s1 := res.Plan.StepByID("s1")
	assert.Equal(t, plan.StepFailed, s1.Status)
	assert.Empty(t, s1.RescuedBy())
	assert.Equal(t, "boom fb", s1.Result.Error)
	assert.Equal(t, "fallback fb failed too, after: boom s1", s1.Note)
}
