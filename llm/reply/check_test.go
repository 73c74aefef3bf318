package reply

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// llmStep is a step reply with an llm action; deps, when given, become
// its dependsOn (without them the step leaves the field out).
func llmStep(id, title string, deps ...string) Step {
	s := Step{ID: id, Title: title, Action: plan.ActionLLM,
		Config: StepConfig{LLM: &plan.LLMConfig{Prompt: "do " + title}}}
	if len(deps) > 0 {
		s.DependsOn = Deps(deps...)
	}
	return s
}

func TestCheckOptions(t *testing.T) {
	tool := Step{Title: "Run", Action: plan.ActionTool}
	tests := []struct {
		name  string
		reply Options
		err   string
	}{
		{"no options", Options{}, `"options" is empty`},
		{"no title", Options{Options: []Option{{Steps: []Step{llmStep("", "a")}}}}, "has no title"},
		{"no steps", Options{Options: []Option{{Title: "A"}}}, `option 1 ("A") has no steps`},
		{"unknown action", Options{Options: []Option{{Title: "A",
			Steps: []Step{{Title: "x", Action: "dance"}}}}}, `unknown action "dance"`},
		{"tool without name", Options{Options: []Option{{Title: "A", Steps: []Step{tool}}}},
			"without config.tool.name"},
		{"duplicate ids", Options{Options: []Option{{Title: "A",
			Steps: []Step{llmStep("s1", "a"), llmStep("s1", "b")}}}}, `repeats the id "s1"`},
		{"unknown dependency", Options{Options: []Option{{Title: "A",
			Steps: []Step{llmStep("s1", "a", "s9")}}}}, `depends on "s9"`},
		{"good", Options{Options: []Option{{Title: "A",
			Steps: []Step{llmStep("s1", "a"), llmStep("s2", "b", "s1")}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.reply.Check(0)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestCheckOptionsNormalizes(t *testing.T) {
	r := Options{Options: []Option{{Title: "A", Steps: []Step{
		{Title: "Think", Description: "about it", Action: plan.ActionLLM},
		{ID: "s1", Title: "Act", Action: plan.ActionAgent},
		{Title: "Check", Action: plan.ActionLLM, DependsOn: Deps("s1")},
	}}}}
	require.NoError(t, r.Check(0))
	steps := r.Options[0].Steps
	assert.Equal(t, []string{"s2", "s1", "s3"}, []string{steps[0].ID, steps[1].ID, steps[2].ID})
	assert.Equal(t, "Think. about it", steps[0].Config.LLM.Prompt)
	assert.Equal(t, "Act.", steps[1].Config.Agent.Prompt)
}

func TestCheckReflect(t *testing.T) {
	step := &Step{Title: "New", Action: plan.ActionLLM}
	tests := []struct {
		name  string
		reply Reflect
		err   string
	}{
		{"continue", Reflect{Decision: plan.DecisionContinue}, ""},
		{"complete", Reflect{Decision: plan.DecisionComplete, Response: "done"}, ""},
		{"missing", Reflect{}, `"decision" is missing`},
		{"unknown", Reflect{Decision: "dance"}, "is not a decision"},
		{"skip without ids", Reflect{Decision: plan.DecisionSkip}, "stepIds"},
		{"skip", Reflect{Decision: plan.DecisionSkip, StepIDs: []string{"s3"}, Confidence: 0.9}, ""},
		{"bad confidence", Reflect{Decision: plan.DecisionSkip, StepIDs: []string{"s3"}, Confidence: 3}, "between 0"},
		{"insert without edits", Reflect{Decision: plan.DecisionInsert}, `"edits"`},
		{"insert without anchor", Reflect{Decision: plan.DecisionInsert,
			Edits: []Edit{{Op: plan.OpInsertAfter, Step: step}}}, `needs "stepId"`},
		{"append without step", Reflect{Decision: plan.DecisionAppend, Edits: []Edit{{Op: plan.OpAppend}}},
			`needs a "step"`},
		{"bad op", Reflect{Decision: plan.DecisionUpdate, Edits: []Edit{{Op: "move", StepID: "s1"}}},
			`unknown op "move"`},
		{"insert", Reflect{Decision: plan.DecisionInsert,
			Edits: []Edit{{Op: plan.OpInsertAfter, StepID: "s1", Step: step}}}, ""},
		{"replan without steps", Reflect{Decision: plan.DecisionReplan}, `"steps"`},
		{"replan", Reflect{Decision: plan.DecisionReplan, Steps: []Step{llmStep("", "x")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.reply.Check()
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestCheckToolParams(t *testing.T) {
	step := func(params string) Options {
		return Options{Options: []Option{{Title: "A", Steps: []Step{{Title: "Find", Action: plan.ActionTool,
			Config: StepConfig{Tool: &ToolConfig{Name: "search_code", Params: []byte(params)}}}}}}}
	}
	for _, ok := range []string{``, `{}`, `{"pattern":"x"}`, `null`} {
		r := step(ok)
		assert.NoError(t, r.Check(0), ok)
	}
	for _, bad := range []string{`["x"]`, `"x"`, `3`} {
		r := step(bad)
		assert.ErrorContains(t, r.Check(0), `step 1 ("Find"): config.tool.params is not a JSON object`, bad)
	}
}

func TestCheckClarify(t *testing.T) {
	c := Clarify{Goal: "g", NeedsPlan: false, DirectAnswer: "  "}
	require.NoError(t, c.Check())
	assert.True(t, c.NeedsPlan, "no plan needed without an answer reads as needing a plan")
	c = Clarify{Goal: "g", DirectAnswer: "4"}
	require.NoError(t, c.Check())
	assert.False(t, c.NeedsPlan)
}

func TestCheckOptionsLimit(t *testing.T) {
	r := Options{Options: []Option{{Title: "A", Steps: []Step{llmStep("", "a"), llmStep("", "b"), llmStep("", "c")}}}}
	assert.ErrorContains(t, r.Check(2), `option 1 ("A") has 3 steps; the most allowed is 2`)
	assert.NoError(t, r.Check(3))
	assert.NoError(t, r.Check(0), "zero is no limit")
}
