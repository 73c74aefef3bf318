package prompts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// summaryPlan is a plan of n completed steps whose outputs are long, as
// an agent step's account is.
func summaryPlan(n int) plan.Plan {
	p := plan.Plan{Title: "Signup rules reviewed"}
	for i := 1; i <= n; i++ {
		p.Steps = append(p.Steps, plan.Step{ID: fmt.Sprintf("s%d", i), Title: fmt.Sprintf("Rule %d of the signup handler", i),
			Status: plan.StepCompleted, Result: &plan.StepResult{Success: true,
				Output: fmt.Sprintf("Step %d read signup.go and wrote the finding to NOTES.md. ", i) + strings.Repeat("Details. ", 40)}})
	}
	return p
}

// stepList renders the summary prompt of p and returns its step list: the
// lines the template writes for the steps.
func stepList(t *testing.T, p plan.Plan) string {
	t.Helper()
	msgs, err := Summarize(Custom{}, NewSummarizeData("g", "completed", false, p.Digest()))
	require.NoError(t, err)
	var b strings.Builder
	for _, l := range strings.SplitAfter(msgs[len(msgs)-1].Content, "\n") {
		if strings.HasPrefix(l, "- ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestSummaryStepListUnchangedForAShortPlan(t *testing.T) {
	p := summaryPlan(10)
	d := p.Digest()
	assert.Equal(t, d.Steps, boundSteps(d.Steps, SummaryListBytes), "ten steps fit whole")
	list := stepList(t, p)
	assert.Contains(t, list, "- s10 [completed] Rule 10 of the signup handler: "+d.Steps[9].Digest+"\n")
	assert.Len(t, d.Steps[9].Digest, plan.DigestChars, "each digest whole, as long as a digest is")
}

func TestSummaryStepListWithinItsBudget(t *testing.T) {
	for _, n := range []int{50, 200} {
		p := summaryPlan(n)
		whole := 0
		for _, s := range p.Digest().Steps {
			whole += lineBytes(s)
		}
		list := stepList(t, p)
		assert.LessOrEqual(t, len(list), SummaryListBytes, "%d steps", n)
		assert.Greater(t, whole, SummaryListBytes, "%d steps: the cut is tested", n)
		lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
		require.Len(t, lines, min(n, plan.DigestSteps))
		for i, l := range lines {
			prefix := fmt.Sprintf("- s%d [completed] Rule %d of the signup handler: Step %d read", i+1, i+1, i+1)
			assert.True(t, strings.HasPrefix(l, prefix), "every step keeps its id, status, title and a head of its digest: %q", l)
		}
	}
}

func TestSummaryStepListKeepsWhatWentWrong(t *testing.T) {
	p := summaryPlan(50)
	reason := "the migration failed: column email already exists in table users " + strings.Repeat("(detail) ", 12)
	p.Steps[16].Status, p.Steps[16].Result = plan.StepFailed, &plan.StepResult{Error: reason}
	p.Steps[40].Status, p.Steps[40].Result, p.Steps[40].Note = plan.StepSkipped, nil, "skipped: s17 failed, so the rule cannot be checked"
	d := p.Digest()
	list := stepList(t, p)
	assert.LessOrEqual(t, len(list), SummaryListBytes)
	assert.Contains(t, list, "- s17 [failed] Rule 17 of the signup handler: "+d.Steps[16].Digest+"\n",
		"the failed step's whole line")
	assert.Contains(t, d.Steps[16].Digest, "column email already exists")
	assert.Contains(t, list, "- s41 [skipped] Rule 41 of the signup handler: skipped: s17 failed, so the rule cannot be checked\n")
	assert.Less(t, len(boundSteps(d.Steps, SummaryListBytes)[0].Digest), len(d.Steps[0].Digest),
		"completed steps are cut first")
}

func TestSummaryStepListCutsTitlesOnlyPastTheBudget(t *testing.T) {
	p := summaryPlan(60)
	for i := range p.Steps {
		p.Steps[i].Title = fmt.Sprintf("Step %d: ", i+1) + strings.Repeat("a long title ", 12)
	}
	list := stepList(t, p)
	assert.LessOrEqual(t, len(list), SummaryListBytes)
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	require.Len(t, lines, 60)
	for i, l := range lines {
		assert.True(t, strings.HasPrefix(l, fmt.Sprintf("- s%d [completed] Step %d: a long", i+1, i+1)), "%q", l)
	}
	assert.Empty(t, boundSteps(nil, SummaryListBytes))
	assert.Equal(t, []int{2, 4, 4}, fairShares([]int{2, 9, 5}, 10), "what the short want leave goes to the long")
}
