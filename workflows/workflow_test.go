package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestHappyPathAutoSelection(t *testing.T) {
	h := newHarness(t)
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "summary: completed", res.Summary)
	require.NotNil(t, res.Plan)
	assert.Equal(t, plan.PlanCompleted, res.Plan.Status)
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepCompleted, "s3": plan.StepCompleted}, statuses(res.Plan))
	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Equal(t, 3, res.Metrics.StepsCompleted)
	assert.Equal(t, 5+20+3*10, res.Tokens)
	assert.Equal(t, 3, h.f.count("Reflect"))
	assert.Equal(t, 0, h.f.count("SnapshotWorkspace"), "no workspace, no snapshot")

	opts := query(h, signals.OptionsQuery)
	assert.Equal(t, opts.RecommendedID, res.SelectedOptionID)
	assert.Equal(t, 1, opts.Revision)
	require.Len(t, opts.Options, 2)
	assert.NotEmpty(t, opts.Comparison.Rows)

	prog := query(h, signals.ProgressQuery)
	assert.Equal(t, plan.PhaseCompleted, prog.Phase)
	assert.Equal(t, 100, prog.Percent)
	assert.Equal(t, signals.AwaitingNone, prog.Awaiting)

	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.summarizeIn, 1)
	assert.False(t, h.f.summarizeIn[0].Partial)
	require.Len(t, h.f.optionsIn, 1)
	assert.Equal(t, signals.DefaultOptionCount, h.f.optionsIn[0].Count)
	assert.Equal(t, 1, h.f.optionsIn[0].Revision)
}
