package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestEditNamingAnUnknownToolIsRefused: edits keep the run's limits,
// the built-in tools included.
func TestEditNamingAnUnknownToolIsRefused(t *testing.T) {
	h := newHarness(t)
	var refused *outcome[signals.EditPlanResponse]
	h.at(stepTime/2, func() {
		s := toolStep("t9", "launch_missiles", nil)
		refused = update(h, signals.EditPlan, signals.EditPlanRequest{Reason: "why not", Edits: []plan.Edit{{Op: plan.OpAppend, Step: &s}}})
	})
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status)
	requireRejected(t, refused, `"launch_missiles" is not a known tool`)
	assert.Nil(t, res.Plan.StepByID("t9"))
}
