package offline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// decodeStrict decodes a reply's JSON, refusing unknown fields.
func decodeStrict[T any](t *testing.T, content string) T {
	t.Helper()
	var out T
	dec := json.NewDecoder(bytes.NewReader([]byte(content)))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&out), content)
	return out
}

func TestClarify(t *testing.T) {
	tests := []struct {
		name      string
		goal      string
		ask       bool
		answers   map[string]string
		wantGoal  string
		needsPlan bool
		questions int
	}{
		{"imperative kept", "add a discount to the cart", false, nil, "Add a discount to the cart.", true, 0},
		{"polite prefix and spaces", "  please   can you add tests!  ", false, nil, "Add tests.", true, 0},
		{"favour asked as question", "Could you add a README?", false, nil, "Add a README.", true, 0},
		{"how-to question needs a plan", "How do I add JWT auth to this service?", false, nil, "How do I add JWT auth to this service?", true, 0},
		{"plain question answered", "what is the capital of France?", false, nil, "What is the capital of France?", false, 0},
		{"long question planned", "What would it take to split the cart into a module with separate pricing and tax rules?", false, nil,
			"What would it take to split the cart into a module with separate pricing and tax rules?", true, 0},
		{"short goal with questions allowed", "fix it", true, nil, "Fix it.", true, 3},
		{"short goal without questions", "fix it", false, nil, "Fix it.", true, 0},
		{"short goal already answered", "fix it", true, map[string]string{"Which files?": "cart.go"}, "Fix it.", true, 0},
		{"long goal needs no questions", "refactor the cart to use integer cents", true, nil, "Refactor the cart to use integer cents.", true, 0},
	}
	b := NewOfflineBrain()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := b.Reply(llm.PhaseClarify, clarifyRequest(tt.goal, tt.ask, tt.answers, demoFiles))
			got := decodeStrict[reply.Clarify](t, r.Content)
			assert.Equal(t, tt.wantGoal, got.Goal)
			assert.Equal(t, tt.needsPlan, got.NeedsPlan)
			assert.Len(t, got.Questions, tt.questions)
			if tt.needsPlan {
				assert.Empty(t, got.DirectAnswer)
			} else {
				assert.Contains(t, got.DirectAnswer, "offline model cannot look things up")
				assert.Contains(t, got.DirectAnswer, OfflineNotice)
			}
		})
	}
}

// toPlan turns an option reply into a plan as the activities do, for
// validation and scoring.
func toPlan(o reply.Option) plan.Option {
	return o.PlanOption("o", "p", plan.Task{}, time.Time{})
}

func planOptions(t *testing.T, f planFixture) []reply.Option {
	t.Helper()
	r := NewOfflineBrain().Reply(llm.PhasePlan, planReq(f))
	got := decodeStrict[reply.Options](t, r.Content)
	for _, o := range got.Options {
		res := plan.Validate(toPlan(o).Plan, plan.Limits{MaxSteps: f.maxSteps})
		require.True(t, res.Valid, "%s: %v", o.Title, res.Messages())
		assert.NotEmpty(t, o.Pros, o.Title)
		assert.NotEmpty(t, o.Cons, o.Title)
		assert.NotEmpty(t, o.Risks, o.Title)
		assert.Positive(t, o.Estimates.DurationMinutes, o.Title)
		assert.Positive(t, o.Estimates.Confidence, o.Title)
		for _, s := range o.Steps {
			assert.Positive(t, s.EstimatedSeconds, "%s/%s", o.Title, s.ID)
		}
	}
	return got.Options
}

// stepTools returns every tool an option's steps use.
func stepTools(o reply.Option) []string {
	var out []string
	for _, s := range o.Steps {
		switch {
		case s.Config.Tool != nil:
			out = append(out, s.Config.Tool.Name)
		case s.Config.Agent != nil:
			out = append(out, s.Config.Agent.Tools...)
		}
	}
	return out
}

func TestPlanOptionsValidateAndRankDistinctly(t *testing.T) {
	opts := planOptions(t, planFixture{goal: "Add a discount to the cart", count: 5, files: demoFiles, tools: allTools})
	require.Len(t, opts, 5)
	var ranked []plan.Option
	titles := map[string]bool{}
	scores := map[float64]bool{}
	for _, o := range opts {
		titles[o.Title] = true
		p := toPlan(o)
		scores[plan.Score(p)] = true
		ranked = append(ranked, p)
		assert.Contains(t, o.Description, "feature template")
	}
	assert.Len(t, titles, 5, "titles differ")
	assert.Len(t, scores, 5, "scores differ")
	ranked = plan.Rank(ranked)
	assert.True(t, strings.HasPrefix(ranked[0].Title, "Balanced:"), ranked[0].Title)
	assert.Equal(t, "Balanced: Add a discount to the cart", opts[0].Title)
	assert.Contains(t, stepTools(opts[0]), plan.ToolRunTests, "go.mod means tests")
	assert.Less(t, len(opts[1].Steps), len(opts[0].Steps), "minimal is shorter")
	assert.Greater(t, len(opts[2].Steps), len(opts[0].Steps), "thorough is longer")
}

func TestPlanOptionCount(t *testing.T) {
	tests := []struct {
		count, want int
	}{{1, 1}, {3, 3}, {5, 5}, {9, 5}, {0, 1}}
	for _, tt := range tests {
		opts := planOptions(t, planFixture{goal: "Tidy the cart", count: tt.count, files: demoFiles, tools: allTools})
		assert.Len(t, opts, tt.want, "count %d", tt.count)
	}
	req := request(llm.PhasePlan, "Goal: Tidy the cart")
	got := decodeStrict[reply.Options](t, NewOfflineBrain().Reply(llm.PhasePlan, req).Content)
	assert.Len(t, got.Options, defaultOptions)
}

func TestPlanMaxSteps(t *testing.T) {
	for _, max := range []int{1, 2, 4} {
		opts := planOptions(t, planFixture{goal: "Fix the crash in Total", count: 5, maxSteps: max, files: demoFiles, tools: allTools})
		for _, o := range opts {
			assert.LessOrEqual(t, len(o.Steps), max, o.Title)
		}
	}
}

func TestPlanFeedback(t *testing.T) {
	opts := planOptions(t, planFixture{goal: "Add a discount to the cart", count: 3, feedback: "make it faster please",
		files: demoFiles, tools: allTools})
	assert.True(t, strings.HasPrefix(opts[0].Title, "Minimal (revised):"), opts[0].Title)
	for _, o := range opts {
		assert.Contains(t, o.Title, "(revised)")
		assert.Contains(t, o.Description, "make it faster please")
	}
}

func TestPlanFitsWorkspaceAndTools(t *testing.T) {
	t.Run("no test setup", func(t *testing.T) {
		opts := planOptions(t, planFixture{goal: "Add a discount to the cart", count: 5, files: []string{"notes.txt"}, tools: allTools})
		for _, o := range opts {
			assert.NotContains(t, stepTools(o), plan.ToolRunTests, o.Title)
			assert.NotContains(t, stepTools(o), plan.ToolSearchCode, "no source to search: %s", o.Title)
		}
	})
	t.Run("restricted tools", func(t *testing.T) {
		tools := []string{"list_files", "read_file", "write_file"}
		opts := planOptions(t, planFixture{goal: "Fix the crash in Total", count: 5, files: demoFiles, tools: tools})
		for _, o := range opts {
			for _, tool := range stepTools(o) {
				assert.Contains(t, tools, tool, o.Title)
			}
		}
	})
	t.Run("source to search", func(t *testing.T) {
		opts := planOptions(t, planFixture{goal: "Tidy the cart", count: 3, files: demoFiles, tools: allTools})
		assert.Contains(t, stepTools(opts[0]), plan.ToolSearchCode)
	})
}

func TestPlanEveryTemplateValidates(t *testing.T) {
	goals := map[string]string{
		plan.TemplateRefactoring:   "Refactor the cart",
		plan.TemplateBugFix:        "Fix the bug in Total",
		plan.TemplateFeature:       "Implement coupons",
		plan.TemplateDocumentation: "Document the cart package",
		plan.TemplateAnalysis:      "Audit the cart for overflow",
		"":                         "Tidy the cart",
	}
	for name, goal := range goals {
		t.Run(name, func(t *testing.T) {
			opts := planOptions(t, planFixture{goal: goal, count: 5, files: demoFiles, tools: allTools})
			require.Len(t, opts, 5)
			if name != "" {
				assert.Contains(t, opts[0].Description, strings.ReplaceAll(name, "_", " ")+" template")
			} else {
				assert.NotContains(t, opts[0].Description, "template")
			}
		})
	}
}

func TestRepliesAreDeterministic(t *testing.T) {
	reqs := map[string]openai.ChatCompletionRequest{
		llm.PhaseClarify:   clarifyRequest("fix it", true, nil, demoFiles),
		llm.PhasePlan:      planReq(planFixture{goal: "Add a discount", count: 5, files: demoFiles, tools: allTools}),
		llm.PhaseExecute:   request(llm.PhaseExecute, stepUser("Review", "Review the change", nil)),
		llm.PhaseAgent:     agentRequest("Fix", "Fix cart.go", allTools),
		llm.PhaseReflect:   reflectRequest("s1", true, "", "s2 Next"),
		llm.PhaseSummarize: summarizeRequest("completed", false, "s1 [completed] Survey: 4 files"),
	}
	for phase, req := range reqs {
		a := NewOfflineBrain().Reply(phase, req)
		b := NewOfflineBrain().Reply(phase, req)
		assert.Equal(t, a, b, phase)
	}
}

func TestExecute(t *testing.T) {
	r := NewOfflineBrain().Reply(llm.PhaseExecute, request(llm.PhaseExecute,
		stepUser("Review the change", "Review the implementation of: Add a discount", nil)))
	assert.Contains(t, r.Content, "Step “Review the change”")
	assert.Contains(t, r.Content, "Review the implementation of: Add a discount")
	assert.Contains(t, r.Content, OfflineNotice)
	assert.Empty(t, r.ToolCalls)
}

func TestReflect(t *testing.T) {
	b := NewOfflineBrain()
	tests := []struct {
		name    string
		req     openai.ChatCompletionRequest
		reasons []string
	}{
		{"success", reflectRequest("s1", true, "", "s2 Change the code", "s3 Run the tests"),
			[]string{"Step s1 succeeded", "going on with s2 Change the code"}},
		{"last step", reflectRequest("s3", true, ""), []string{"no steps remain"}},
		{"failure", reflectRequest("s2", false, "exit status 1", "s3 Run the tests"),
			[]string{"Step s2 failed (exit status 1)", "retry makes sense", "going on with s3"}},
		{"no result line", request(llm.PhaseReflect, "Status of step s4: skipped"), []string{"the step ended"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeStrict[reply.Reflect](t, b.Reply(llm.PhaseReflect, tt.req).Content)
			assert.Equal(t, plan.DecisionContinue, got.Decision)
			for _, want := range tt.reasons {
				assert.Contains(t, got.Reason, want)
			}
			assert.Contains(t, got.Reason, "offline model")
		})
	}
}

func TestSummarize(t *testing.T) {
	r := NewOfflineBrain().Reply(llm.PhaseSummarize, summarizeRequest("failed", true,
		"s1 [completed] Survey the workspace: README.md",
		"s2 [failed] Fix the bug: error: exit status 1",
		"s3 [skipped] Review",
		"s4 [pending] Explain the fix"))
	for _, want := range []string{
		"**Goal:** Add a discount to the cart.",
		"**Status:** failed\n",
		"partial summary",
		"## Completed (1)\n\n- s1 Survey the workspace: README.md",
		"## Failed (1)\n\n- s2 Fix the bug: error: exit status 1",
		"## Skipped (1)\n\n- s3 Review",
		"## Not run (1)\n\n- s4 Explain the fix",
		OfflineNotice,
	} {
		assert.Contains(t, r.Content, want)
	}

	empty := NewOfflineBrain().Reply(llm.PhaseSummarize, request(llm.PhaseSummarize, "Goal: x"))
	assert.Contains(t, empty.Content, "listed no steps")
	assert.Contains(t, empty.Content, OfflineNotice)
}

func TestUnknownPhase(t *testing.T) {
	r := NewOfflineBrain().Reply(PhaseUnknown, request("other", "hello"))
	assert.Contains(t, r.Content, OfflineNotice)
}

func TestReadsEarlierTemplateWording(t *testing.T) {
	r := NewOfflineBrain().Reply(llm.PhaseExecute, request(llm.PhaseExecute,
		legacyStepUser("Review the change", "Review the implementation of: Add a discount", nil)))
	assert.Contains(t, r.Content, "Step “Review the change”")
	assert.Contains(t, r.Content, "Asked: Review the implementation of: Add a discount")

	got := decodeStrict[reply.Reflect](t, NewOfflineBrain().Reply(llm.PhaseReflect, request(llm.PhaseReflect,
		"Overall goal: g\nYou are on step 1 of 3: Survey (id s1)\n\nSteps after this one:\n- s2 Edit\n\n"+
			"Result of step s1: succeeded\n")).Content)
	assert.Contains(t, got.Reason, "Step s1 succeeded as planned; going on with s2 Edit")
}
