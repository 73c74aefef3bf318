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
			for _, s := range p.Steps[1:] {
				if !p.IsFallbackOnly(s.ID) {
					assert.NotNil(t, s.DependsOn, "%s follows something or says it is independent", s.ID)
				}
				for _, d := range s.DependsOn {
					assert.False(t, p.IsFallbackOnly(d), "%s waits on the fallback %s, which may never run", s.ID, d)
				}
			}
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

func TestDetectTaskType(t *testing.T) {
	tests := []struct {
		goal string
		want string
		ok   bool
	}{
		{"Refactor the auth module", TemplateRefactoring, true},
		{"Restructure packages and fix imports", TemplateRefactoring, true},
		{"Fix the login crash", TemplateBugFix, true},
		{"Crashes when saving", TemplateBugFix, true},
		{"Update the README", TemplateDocumentation, true},
		{"Document the public API", TemplateDocumentation, true},
		{"Audit dependencies for licences", TemplateAnalysis, true},
		{"Analyze performance of the parser", TemplateAnalysis, true},
		{"Add JWT authentication", TemplateFeature, true},
		{"Implement rate limiting", TemplateFeature, true},
		{"Prefix every log line", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.goal, func(t *testing.T) {
			got, ok := DetectTaskType(tt.goal)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTemplateByName(t *testing.T) {
	for _, name := range []string{TemplateRefactoring, TemplateBugFix, TemplateFeature, TemplateDocumentation, TemplateAnalysis} {
		tmpl, ok := TemplateByName(name)
		require.True(t, ok, name)
		assert.Equal(t, name, tmpl.Name)
		assert.NotEmpty(t, tmpl.Keywords)
	}
	_, ok := TemplateByName("nope")
	assert.False(t, ok)
	// Each call returns fresh copies.
	a := Templates()
	a[0].Steps[0].Title = "changed"
	assert.NotEqual(t, "changed", Templates()[0].Steps[0].Title)
}

func TestFromTemplateSubstitutesRequest(t *testing.T) {
	tmpl := Template{Name: "custom", Steps: []Step{
		tmplTool("Search", KindCodeAnalysis, 0, ToolSearchCode, map[string]any{"pattern": "{request}", "glob": "*.go"}),
		tmplTool("Run", KindShellCommand, 0, ToolRunCommand, map[string]any{"command": "echo", "args": []any{"{request}"}}),
		tmplLLM("Ask", KindCodeAnalysis, 0, "About {request}"),
	}}
	task := Task{Goal: "TODO", Requirements: []string{"r1"}, Constraints: []string{"c1"}}
	p := FromTemplate(tmpl, task, "p", t0)
	assert.Equal(t, "TODO", p.Steps[0].Config.Tool.Params["pattern"])
	assert.Equal(t, []any{"TODO"}, p.Steps[1].Config.Tool.Params["args"])
	assert.Equal(t, "About TODO\nRequirements:\n- r1\nConstraints:\n- c1", p.Steps[2].Config.LLM.Prompt)
	assert.Equal(t, "{request}", tmpl.Steps[0].Config.Tool.Params["pattern"], "template untouched")
	assert.Equal(t, ComplexityLow, p.Estimates.Complexity)
	assert.Equal(t, "Custom: TODO", p.Title)
	assert.Equal(t, []string{ToolRunCommand, ToolSearchCode}, p.Resources)
}

func TestTemplatesPlanForFailure(t *testing.T) {
	for _, tmpl := range Templates() {
		p := FromTemplate(tmpl, Task{Goal: "g"}, "p", t0)
		for _, s := range p.Steps {
			if s.Config.Tool == nil || s.Config.Tool.Name != ToolRunTests {
				continue
			}
			assert.Equal(t, 2, s.MaxRetries, "%s/%s: flaky tests are retried", tmpl.Name, s.ID)
			assert.Equal(t, Duration(5e9), s.RetryDelay)
			fb := p.StepByID(s.FallbackStepID)
			require.NotNil(t, fb, "%s/%s has a fallback", tmpl.Name, s.ID)
			assert.Equal(t, ActionAgent, fb.Action)
			assert.Contains(t, fb.Config.Agent.Tools, ToolRunTests)
		}
	}
	doc := FromTemplate(mustTemplate(t, TemplateDocumentation), Task{Goal: "g"}, "p", t0)
	assert.Equal(t, []string{"s1", "s2"}, doc.Ready(), "listing and finding documents run side by side")
	assert.Equal(t, []string{"s1", "s2"}, doc.StepByID("s3").DependsOn)
	assert.Equal(t, "s4.filesChanged == 0", doc.StepByID("s5").SkipCondition)
	ref := FromTemplate(mustTemplate(t, TemplateRefactoring), Task{Goal: "g"}, "p", t0)
	assert.Equal(t, "s4.filesChanged == 0", ref.StepByID("s5").SkipCondition)
	assert.Empty(t, ref.StepByID("s6").DependsOn, "the fallback is out of the chain")
}

func TestFromTemplateKeepsFallbacksOutOfTheChain(t *testing.T) {
	primary := tmplLLM("Try", KindCodeAnalysis, 0, "try")
	primary.FallbackStepID = "s2"
	tmpl := Template{Name: "custom", Steps: []Step{primary, tmplLLM("Else", KindCodeAnalysis, 0, "else"),
		tmplLLM("Then", KindCodeAnalysis, 0, "then")}}
	p := FromTemplate(tmpl, Task{Goal: "g"}, "p", t0)
	assert.Nil(t, p.Steps[1].DependsOn)
	assert.Equal(t, []string{"s1"}, p.Steps[2].DependsOn, "the step after a fallback follows its primary")
	assert.True(t, Validate(p, Limits{}).Valid)
}

func mustTemplate(t *testing.T, name string) Template {
	t.Helper()
	tmpl, ok := TemplateByName(name)
	require.True(t, ok, name)
	return tmpl
}
