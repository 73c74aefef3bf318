package workflows

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// reflections are the reflection-decided events of evs by step id.
func reflections(t *testing.T, evs []signals.Event) map[string][]reflectionDecided {
	t.Helper()
	out := map[string][]reflectionDecided{}
	for _, e := range evs {
		if e.Type != signals.EventReflectionDecided || e.Step == nil {
			continue
		}
		var d reflectionDecided
		require.NoError(t, json.Unmarshal(e.Data, &d))
		out[e.Step.ID] = append(out[e.Step.ID], d)
	}
	return out
}

// reflectedOn are the steps the Reflect activity was asked about, in order.
func reflectedOn(h *harness) []string {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	var ids []string
	for _, in := range h.f.reflectIn {
		ids = append(ids, in.Context.Step.ID)
	}
	return ids
}

// TestStepsThatDidWhatTheyPlannedAreNotReflectedOn: in the balanced and
// efficient modes a plan whose steps all did what they planned (an llm
// step, an agent step that answered, a tool step that succeeded) asks the
// model to reflect only after its last step; each other step's history
// records the continue decision as skipped, with why.
func TestStepsThatDidWhatTheyPlannedAreNotReflectedOn(t *testing.T) {
	for _, mode := range []signals.ExecutionMode{signals.ExecBalanced, signals.ExecEfficient} {
		t.Run(string(mode), func(t *testing.T) {
			h := newHarness(t)
			spy := watchCommands(h)
			h.f.onePlan(llmStep("s1"), agentStep("a2", 0), toolStep("t3", plan.ToolReadFile, map[string]any{"path": "a.go"}),
				llmStep("s4"))
			req := autoReq()
			req.Execution.Mode = mode
			res := h.run(req)
			require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

			assert.Equal(t, []string{"s4"}, reflectedOn(h), "only the last step is reflected on")
			byStep := reflections(t, spy.events(t))
			for _, id := range []string{"s1", "a2", "t3"} {
				assert.Equal(t, []reflectionDecided{{Decision: plan.DecisionContinue, Reason: plan.ReflectionSkippedReason,
					Skipped: true}}, byStep[id], "step %s", id)
			}
			require.Len(t, byStep["s4"], 1)
			assert.False(t, byStep["s4"][0].Skipped, "the last step's reflection asks the model")
		})
	}
}

// TestARetriedStepIsReflectedOn: a step that failed and then succeeded on
// its retry did not do what it planned at first: its reflection asks the
// model, in balanced mode too.
func TestARetriedStepIsReflectedOn(t *testing.T) {
	h := newHarness(t)
	s1 := llmStep("s1")
	s1.MaxRetries = 1
	h.f.onePlan(s1, llmStep("s2", "s1"), llmStep("s3", "s2"))
	tries := 0
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		if in.Context.Step.ID == "s1" {
			if tries++; tries == 1 {
				return plan.StepResult{Error: "flaky"}, nil
			}
		}
		return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	assert.Equal(t, 2, res.Plan.StepByID("s1").Result.Attempts)
	assert.Equal(t, []string{"s1", "s3"}, reflectedOn(h), "s1 was retried, s3 is the last; s2 did what it planned")
}

// TestCompleteModeReflectsAfterEveryStep: the complete mode asks the model
// after every step, whatever it did.
func TestCompleteModeReflectsAfterEveryStep(t *testing.T) {
	h := newHarness(t)
	spy := watchCommands(h)
	req := autoReq()
	req.Execution.Mode = signals.ExecComplete
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	assert.Equal(t, []string{"s1", "s2", "s3"}, reflectedOn(h))
	for id, ds := range reflections(t, spy.events(t)) {
		require.Len(t, ds, 1, "step %s", id)
		assert.False(t, ds[0].Skipped, "step %s", id)
	}
}
