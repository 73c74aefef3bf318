package offline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm/reply"
)

// stepByTitle returns the step of o with the title.
func stepByTitle(t *testing.T, o reply.Option, title string) reply.Step {
	t.Helper()
	for _, s := range o.Steps {
		if s.Title == title {
			return s
		}
	}
	require.Failf(t, "no step", "%q in %s", title, o.Title)
	return reply.Step{}
}

func TestPlanGivesEveryStepDependsOn(t *testing.T) {
	for _, goal := range []string{"Add a discount to the cart", "Tidy the cart", "Fix the bug in Total",
		"Document the cart package", "Write notes on: parsing; caching; logging; metrics"} {
		for _, o := range planOptions(t, planFixture{goal: goal, count: 5, files: demoFiles, tools: allTools}) {
			for _, s := range o.Steps {
				assert.NotNil(t, s.DependsOn, "%s / %s: the field is always written", o.Title, s.Title)
			}
		}
	}
}

func TestPlanOfIndependentParts(t *testing.T) {
	opts := planOptions(t, planFixture{goal: "Write notes on: parsing; caching; logging; metrics", count: 1,
		files: demoFiles, tools: allTools})
	o := opts[0]
	p := toPlan(o).Plan
	var parts []string
	for _, s := range o.Steps {
		if len(s.Title) > 5 && s.Title[:5] == "Part " {
			parts = append(parts, s.ID)
			assert.Empty(t, *s.DependsOn, "%s is independent", s.Title)
		}
	}
	require.Len(t, parts, 4)
	survey := stepByTitle(t, o, "Survey the workspace")
	assert.Empty(t, *survey.DependsOn)
	assert.Equal(t, append([]string{survey.ID}, parts...), p.Ready(), "the survey and every part are ready at once")
	combine := stepByTitle(t, o, "Combine the parts")
	assert.ElementsMatch(t, append([]string{survey.ID}, parts...), *combine.DependsOn)
}

func TestPlanChainsDependentWork(t *testing.T) {
	o := planOptions(t, planFixture{goal: "Tidy the cart", count: 1, files: demoFiles, tools: allTools})[0]
	require.Len(t, o.Steps, 3, "survey, change and check")
	survey, change, check := o.Steps[0], o.Steps[1], o.Steps[2]
	assert.Empty(t, *survey.DependsOn)
	assert.Equal(t, []string{survey.ID}, *change.DependsOn, "the change builds on the survey")
	assert.Equal(t, []string{change.ID}, *check.DependsOn)
}

func TestPlanRetriesTestsAndFallsBack(t *testing.T) {
	opts := planOptions(t, planFixture{goal: "Tidy the cart", count: 3, files: demoFiles, tools: allTools})
	balanced := stepByTitle(t, opts[0], "Verify the change")
	assert.Equal(t, 2, balanced.MaxRetries, "every test run retries")
	assert.Empty(t, balanced.FallbackStepID, "the balanced option has no fallback to skip")
	o := opts[2]
	require.Contains(t, o.Title, "Thorough")
	check := stepByTitle(t, o, "Verify the change")
	assert.Equal(t, 2, check.MaxRetries)
	assert.Equal(t, "2s", check.RetryDelay)
	fix := stepByTitle(t, o, "Fix what the tests report")
	assert.Equal(t, fix.ID, check.FallbackStepID)
	p := toPlan(o).Plan
	assert.True(t, p.IsFallbackOnly(fix.ID))
	assert.Equal(t, 2*time.Second, p.StepByID(check.ID).RetryDelay.D())

	// A template's own retries survive; its fallback is the brain's.
	feat := planOptions(t, planFixture{goal: "Implement coupons", count: 3, files: demoFiles, tools: allTools})[2]
	tests := stepByTitle(t, feat, "Run the tests")
	assert.Equal(t, 2, tests.MaxRetries)
	assert.Equal(t, "5s", tests.RetryDelay)
	assert.Equal(t, stepByTitle(t, feat, "Fix what the tests report").ID, tests.FallbackStepID)
}

func TestPlanSkipConditionNamesTheRightStep(t *testing.T) {
	opts := planOptions(t, planFixture{goal: "Tidy the cart", count: 4, files: demoFiles, tools: allTools})
	inc := opts[3]
	require.Contains(t, inc.Title, "Incremental")
	rest := stepByTitle(t, inc, "Carry out the goal — the rest")
	check := stepByTitle(t, inc, "Verify the change")
	assert.Equal(t, rest.ID+".filesChanged == 0", check.SkipCondition)
}

func TestPlanWithinMaxStepsDropsTheFallbackFirst(t *testing.T) {
	o := planOptions(t, planFixture{goal: "Tidy the cart", count: 3, maxSteps: 3, files: demoFiles, tools: allTools})[2]
	require.Len(t, o.Steps, 3)
	for _, s := range o.Steps {
		assert.Empty(t, s.FallbackStepID, "no room for a fallback")
	}
}
