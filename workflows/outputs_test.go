package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestOutputRefsReachThePlan(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(toolStep("t1", "run_tests", nil), llmStep("s2"))
	h.f.runTool = func(activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Success: true, Output: "head … tail", OutputTruncated: true,
			OutputRef: "/var/cache/planmode/outputs/plan-1/t1-tool-5.txt"}, nil
	}
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Success: true, Output: "start …", OutputTruncated: true,
			OutputRef: "/var/cache/planmode/outputs/plan-1/s2-llm-9.txt"}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	refs := map[string]string{}
	for _, s := range res.Plan.Steps {
		require.NotNil(t, s.Result, s.ID)
		assert.True(t, s.Result.OutputTruncated, s.ID)
		refs[s.ID] = s.Result.OutputRef
	}
	assert.Equal(t, map[string]string{
		"t1": "/var/cache/planmode/outputs/plan-1/t1-tool-5.txt",
		"s2": "/var/cache/planmode/outputs/plan-1/s2-llm-9.txt",
	}, refs)
	view := query(h, signals.PlanQuery)
	require.NotNil(t, view.Plan)
	assert.Equal(t, refs["t1"], view.Plan.StepByID("t1").Result.OutputRef, "the plan query shows the ref too")
}
