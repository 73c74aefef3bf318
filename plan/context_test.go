package plan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longPlan is a chain of n steps where every step before the last has
// finished with a very long output.
func longPlan(n int) Plan {
	p := chain(n)
	for i := 0; i < n-1; i++ {
		p.Steps[i].Status = StepCompleted
		p.Steps[i].Title = fmt.Sprintf("Step %03d %s", i+1, strings.Repeat("t", 200))
		p.Steps[i].Result = &StepResult{Success: true, Output: strings.Repeat(fmt.Sprintf("output of step %03d ", i+1), 500)}
	}
	p.Steps[n-1].Title = "Final step"
	return p
}

func contextSize(t *testing.T, goal string, p *Plan, id string) int {
	t.Helper()
	b, err := json.Marshal(BuildStepContext(goal, p, id))
	require.NoError(t, err)
	return len(b)
}

func TestStepContextSizeDoesNotGrowWithPlanLength(t *testing.T) {
	p40, p8 := longPlan(40), longPlan(8)
	size40 := contextSize(t, "goal", &p40, "s40")
	size8 := contextSize(t, "goal", &p8, "s8")
	assert.InDelta(t, size8, size40, 16, "same bounded size: %d vs %d", size8, size40)
	assert.Less(t, size40, 4000)

	sum := func(p Plan) int {
		total := 0
		for _, s := range p.Steps {
			total += contextSize(t, "goal", &p, s.ID)
		}
		return total
	}
	p80 := longPlan(80)
	assert.Less(t, float64(sum(p80)), 2.1*float64(sum(p40)), "total prompt size grows linearly")
}

func TestStepContextWindow(t *testing.T) {
	p := longPlan(10)
	p.Steps[7].Status = StepFailed
	p.Steps[7].Result = &StepResult{Error: "compile\nerror", Output: "ignored"}
	p.Steps[3].Status = StepFailed
	ctx := BuildStepContext(strings.Repeat("g", 3000), &p, "s9")
	assert.Equal(t, 9, ctx.Position)
	assert.Equal(t, 10, ctx.Total)
	assert.Equal(t, ContextGoalChars, utf8.RuneCountInString(ctx.Goal))
	assert.Equal(t, "s9", ctx.Step.ID)
	require.Len(t, ctx.Before, 2)
	assert.Equal(t, "s7", ctx.Before[0].ID)
	assert.Equal(t, "error: compile error", ctx.Before[1].Digest)
	assert.LessOrEqual(t, utf8.RuneCountInString(ctx.Before[0].Digest), ContextDigestChars)
	assert.LessOrEqual(t, utf8.RuneCountInString(ctx.Before[0].Title), ContextTitleChars)
	require.Len(t, ctx.After, 1)
	assert.Equal(t, "s10", ctx.After[0].ID)
	assert.Empty(t, ctx.After[0].Digest)
	assert.Equal(t, 6, ctx.EarlierCount)
	assert.Zero(t, ctx.LaterCount)
	assert.Contains(t, ctx.Summary, "6 earlier steps: 5 completed, 1 failed")
	assert.Contains(t, ctx.Summary, "Failed: s4")
	assert.LessOrEqual(t, utf8.RuneCountInString(ctx.Summary), ContextSummaryChars)
}

func TestStepContextEdges(t *testing.T) {
	p := chain(6)
	p.Steps[0].Result = &StepResult{Output: "x"}
	ctx := BuildStepContext("goal", &p, "s1")
	assert.Empty(t, ctx.Before)
	assert.Empty(t, ctx.Summary)
	assert.Nil(t, ctx.Step.Result, "the step's own result is cleared")
	assert.NotNil(t, p.Steps[0].Result, "plan untouched")
	assert.Equal(t, 3, ctx.LaterCount)

	missing := BuildStepContext("goal", &p, "nope")
	assert.Zero(t, missing.Position)
	assert.Equal(t, 6, missing.Total)
}

func TestTruncateAndDigest(t *testing.T) {
	assert.Equal(t, "abc", Truncate("abc", 3))
	assert.Equal(t, "ab…", Truncate("abcd", 3))
	assert.Equal(t, "éé…", Truncate("éééé", 3))
	assert.Empty(t, Truncate("abc", 0))
	assert.Equal(t, "skipped: done", Digest(Step{Note: "skipped:  done"}, 50))
	assert.Equal(t, "out put", Digest(Step{Result: &StepResult{Success: true, Output: "out\n put"}}, 50))
}

func TestDigestOfAHugeOutputReadsOnlyItsStart(t *testing.T) {
	long := strings.Repeat("é  word\n", 200000) // multi-byte runes and folded spaces
	s := Step{Result: &StepResult{Success: true, Output: long}}
	got := Digest(s, 40)
	assert.Equal(t, 40, utf8.RuneCountInString(got))
	assert.True(t, strings.HasPrefix(got, "é word é word"), got)
	assert.True(t, strings.HasSuffix(got, "…"))
	assert.Equal(t, "ab", headBytes("abé", 3), "a cut never splits a rune")
}
