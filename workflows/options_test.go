package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// brokenOption is an option whose plan fails validation: its step depends
// on a step that does not exist.
func brokenOption(title string) plan.Option {
	return option(title, plan.ComplexityLow, 0.9, llmStep("x1", "ghost"))
}

func TestInvalidOptionRetriedOnceThenDropped(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		if len(in.Invalid) > 0 {
			return activities.OptionsOutput{Options: []plan.Option{brokenOption("Broken again")}}, nil
		}
		return activities.OptionsOutput{Options: []plan.Option{
			option("Good", plan.ComplexityLow, 0.9, llmSteps(2)...),
			brokenOption("Broken"),
		}}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 2, h.f.count("GenerateOptions"))
	h.f.mu.Lock()
	retry := h.f.optionsIn[1]
	h.f.mu.Unlock()
	assert.Equal(t, 1, retry.Count, "asks only for replacements")
	require.Len(t, retry.Invalid, 1)
	assert.Equal(t, "Broken", retry.Invalid[0].Title)
	require.NotEmpty(t, retry.Invalid[0].Issues)
	assert.Contains(t, retry.Invalid[0].Issues[0], "INVALID_DEPENDENCY")

	opts := query(h, signals.OptionsQuery)
	require.Len(t, opts.Options, 1)
	assert.Equal(t, "Good", opts.Options[0].Title)
	require.Len(t, opts.Dropped, 2)
	assert.Equal(t, "Broken", opts.Dropped[0].Title)
	assert.Contains(t, opts.Dropped[0].Reason, "asked once")
	assert.Equal(t, "Broken again", opts.Dropped[1].Title)
	assert.Equal(t, "still invalid after one retry", opts.Dropped[1].Reason)
	assert.NotEmpty(t, opts.Dropped[1].Issues)
}

func TestInvalidOptionFixedByRetry(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		if len(in.Invalid) > 0 {
			return activities.OptionsOutput{Options: []plan.Option{option("Fixed", plan.ComplexityMedium, 0.7, llmSteps(1)...)}}, nil
		}
		return activities.OptionsOutput{Options: []plan.Option{
			option("Good", plan.ComplexityLow, 0.9, llmSteps(2)...),
			brokenOption("Broken"),
		}}, nil
	}
	h.run(autoReq())

	opts := query(h, signals.OptionsQuery)
	require.Len(t, opts.Options, 2)
	ids := []string{opts.Options[0].ID, opts.Options[1].ID}
	assert.ElementsMatch(t, []string{"r1-o1", "r1-o3"}, ids, "ids keep counting through the retry")
	assert.Len(t, opts.Dropped, 1)
}

func TestNoValidOptionFailsButSummarizes(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
		return activities.OptionsOutput{Options: []plan.Option{brokenOption("Broken")}}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "no valid option")
	assert.Contains(t, res.Error, "Broken")
	assert.Equal(t, "summary: failed", res.Summary)
	assert.Nil(t, res.Plan)
	assert.Equal(t, 1, h.f.count("Summarize"))
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	assert.True(t, h.f.summarizeIn[0].Partial)
	assert.Equal(t, plan.PhaseFailed, query(h, signals.ProgressQuery).Phase)
}

func TestTemplateAndLimitsArePassedThrough(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Template = "auto"
	req.OptionCount = 4
	req.Execution.MaxSteps = 2
	h.f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
		return activities.OptionsOutput{Options: []plan.Option{
			option("Too long", plan.ComplexityLow, 0.9, llmSteps(3)...),
			option("Short", plan.ComplexityLow, 0.9, llmSteps(2)...),
		}, FromTemplate: "feature"}, nil
	}
	res := h.run(req)

	h.f.mu.Lock()
	first := h.f.optionsIn[0]
	h.f.mu.Unlock()
	assert.Equal(t, "auto", first.Template)
	assert.Equal(t, 4, first.Count)
	assert.Equal(t, 2, first.MaxSteps)
	assert.Equal(t, "Short", res.Plan.Title, "the plan over maxSteps is invalid")
	opts := query(h, signals.OptionsQuery)
	require.NotEmpty(t, opts.Dropped)
	assert.Contains(t, opts.Dropped[0].Issues[0], "TOO_MANY_STEPS")
}

func TestDuplicateOptionIDsAreReplaced(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
		a := option("A", plan.ComplexityLow, 0.9, llmSteps(1)...)
		b := option("B", plan.ComplexityHigh, 0.5, llmSteps(1)...)
		a.ID, b.ID = "same", "same"
		return activities.OptionsOutput{Options: []plan.Option{a, b}}, nil
	}
	h.run(autoReq())

	opts := query(h, signals.OptionsQuery)
	require.Len(t, opts.Options, 2)
	assert.ElementsMatch(t, []string{"same", "r1-o2"}, []string{opts.Options[0].ID, opts.Options[1].ID})
}

func TestFailedRetryOfInvalidOptionsIsNotFatal(t *testing.T) {
	h := newHarness(t)
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		if len(in.Invalid) > 0 {
			return activities.OptionsOutput{}, temporal.NewNonRetryableApplicationError("model refused", "BadRequest", nil)
		}
		return activities.OptionsOutput{Options: []plan.Option{option("Good", plan.ComplexityLow, 0.9, llmSteps(1)...), brokenOption("Broken")}}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	opts := query(h, signals.OptionsQuery)
	assert.Len(t, opts.Options, 1)
	require.Len(t, opts.Dropped, 1)
	assert.Equal(t, "Broken", opts.Dropped[0].Title)
}

func TestRankingCriteriaDecideTheRecommendation(t *testing.T) {
	twoWays := func(activities.OptionsInput) (activities.OptionsOutput, error) {
		return activities.OptionsOutput{Options: []plan.Option{
			option("Careful", plan.ComplexityLow, 0.9, llmSteps(3)...),
			option("Quick", plan.ComplexityHigh, 0.5, llmSteps(1)...),
		}}, nil
	}
	tests := []struct {
		name    string
		ranking []plan.Criterion
		want    string
		summary string
		scores  []string
	}{
		{"default formula", nil, "Careful", "best score", []string{plan.CriterionComplexity, plan.CriterionConfidence,
			plan.CriterionTradeoffs, plan.CriterionRisk, plan.CriterionBrevity}},
		{"by speed", []plan.Criterion{{Name: plan.BySpeed}}, "Quick", "Ranked by speed (weight 1).", []string{"speed"}},
		{"by confidence over speed", []plan.Criterion{{Name: plan.ByConfidence, Weight: 3}, {Name: plan.BySpeed}}, "Careful",
			"Ranked by confidence (weight 3) and speed (weight 1).", []string{"confidence", "speed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.f.options = twoWays
			req := autoReq()
			req.Ranking = tt.ranking
			res := h.run(req)

			require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
			assert.Equal(t, tt.want, res.Plan.Title, "auto selection takes the recommended option")
			opts := query(h, signals.OptionsQuery)
			require.Len(t, opts.Options, 2)
			assert.Equal(t, tt.want, opts.Options[0].Title)
			assert.Equal(t, opts.Options[0].ID, opts.RecommendedID)
			var keys []string
			for k := range opts.Options[0].Scores {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, tt.scores, keys)
			assert.Contains(t, opts.Comparison.Summary, tt.summary)
		})
	}
}

func TestUnknownRankingCriterionIsRefused(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Ranking = []plan.Criterion{{Name: "beauty"}}
	h.env.ExecuteWorkflow(PlanMode, req)

	require.True(t, h.env.IsWorkflowCompleted())
	err := h.env.GetWorkflowError()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ranking: unknown criterion "beauty"`)
	assert.Zero(t, h.f.count("GenerateOptions"))
}
