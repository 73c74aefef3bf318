package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplatesAreValidPlans(t *testing.T) {
	task := Task{ID: "t1", Goal: "Tidy the parser", Requirements: []string{"keep the API"}, Constraints: []string{"no new deps"}}
	for _, tmpl := range Templates() {
		t.Run(tmpl.Name, func(t *testing.T) {
			p := FromTemplate(tmpl, task, "plan-1", t0)
			res := Validate(p, Limits{})
			require.True(t, res.Valid, "%v", res.Messages())
			assert.Empty(t, res.Warnings)
			n := len(tmpl.Steps)
			assert.Equal(t, n+1, p.NextStepSeq)
			assert.Equal(t, "s1", p.Steps[0].ID)
			assert.Empty(t, p.Steps[0].DependsOn)
			assert.Equal(t, []string{stepID(n - 1)}, p.Steps[n-1].DependsOn)
			assert.Equal(t, PlanDraft, p.Status)
			assert.Equal(t, 1, p.Version)
			assert.Equal(t, tmpl.Name, p.Template)
			assert.Equal(t, t0, p.CreatedAt)
			assert.InDelta(t, 0.7, p.Estimates.Confidence, 1e-9)
			assert.Contains(t, p.Title, "Tidy the parser")
			var sum Duration
			for _, s := range p.Steps {
				sum += s.Estimated
				assert.Equal(t, StepPending, s.Status)
				for _, prompt := range []string{promptOf(s)} {
					assert.NotContains(t, prompt, RequestPlaceholder)
				}
			}
			assert.Equal(t, sum, p.Estimates.Duration)
			assert.Positive(t, int64(sum))
		})
	}
}

func promptOf(s Step) string {
	switch {
	case s.Config.LLM != nil:
		return s.Config.LLM.Prompt
	case s.Config.Agent != nil:
		return s.Config.Agent.Prompt
	}
	var b strings.Builder
	for _, v := range s.Config.Tool.Params {
		if str, ok := v.(string); ok {
			b.WriteString(str)
		}
	}
	return b.String()
}
