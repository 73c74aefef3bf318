package workflows

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
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
	assert.Equal(t, 1, h.f.count("Reflect"), "balanced: s1 and s2 did what they planned, only the last step is reflected on")
	assert.Equal(t, 1, h.f.count("SnapshotWorkspace"), "the plan's own workspace is snapshotted")
	assert.Equal(t, "default-test-workflow-id", res.Workspace, "a plan that names no workspace gets its own")

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

func TestSummaryFallsBackWhenSummarizeFails(t *testing.T) {
	h := newHarness(t)
	h.f.summarize = func(activities.SummarizeInput) (activities.SummarizeOutput, error) {
		return activities.SummarizeOutput{}, temporal.NewNonRetryableApplicationError("no model", "Config", nil)
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, `Run completed: "Careful" — 3 of 3 steps completed, 0 failed, 0 skipped, 0 cancelled.`, res.Summary)
	assert.Contains(t, query(h, signals.ProgressQuery).LastError, "no model")
}

func TestRejectedPayloadKeepsRunesWhole(t *testing.T) {
	short := "é"
	assert.Equal(t, short, plan.TruncateBytes(short, maxRejectedPayload))
	long := strings.Repeat("é", maxRejectedPayload) // two bytes each
	got := plan.TruncateBytes(long, maxRejectedPayload)
	assert.True(t, utf8.ValidString(got))
	assert.LessOrEqual(t, len(got), maxRejectedPayload+len("…"))
	assert.True(t, strings.HasSuffix(got, "…"))
}
