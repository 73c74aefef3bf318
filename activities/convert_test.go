package activities

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

// llmStep is a step reply with an llm action.
func llmStep(id, title string, deps ...string) StepReply {
	return StepReply{ID: id, Title: title, Action: plan.ActionLLM, DependsOn: deps,
		Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "do " + title}}}
}

func TestCheckOptions(t *testing.T) {
	tool := StepReply{Title: "Run", Action: plan.ActionTool}
	tests := []struct {
		name  string
		reply OptionsReply
		err   string
	}{
		{"no options", OptionsReply{}, `"options" is empty`},
		{"no title", OptionsReply{Options: []OptionReply{{Steps: []StepReply{llmStep("", "a")}}}}, "has no title"},
		{"no steps", OptionsReply{Options: []OptionReply{{Title: "A"}}}, `option 1 ("A") has no steps`},
		{"unknown action", OptionsReply{Options: []OptionReply{{Title: "A",
			Steps: []StepReply{{Title: "x", Action: "dance"}}}}}, `unknown action "dance"`},
		{"tool without name", OptionsReply{Options: []OptionReply{{Title: "A", Steps: []StepReply{tool}}}},
			"without config.tool.name"},
		{"duplicate ids", OptionsReply{Options: []OptionReply{{Title: "A",
			Steps: []StepReply{llmStep("s1", "a"), llmStep("s1", "b")}}}}, `repeats the id "s1"`},
		{"unknown dependency", OptionsReply{Options: []OptionReply{{Title: "A",
			Steps: []StepReply{llmStep("s1", "a", "s9")}}}}, `depends on "s9"`},
		{"good", OptionsReply{Options: []OptionReply{{Title: "A",
			Steps: []StepReply{llmStep("s1", "a"), llmStep("s2", "b", "s1")}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOptions(&tt.reply)
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
	r := OptionsReply{Options: []OptionReply{{Title: "A", Steps: []StepReply{
		{Title: "Think", Description: "about it", Action: plan.ActionLLM},
		{ID: "s1", Title: "Act", Action: plan.ActionAgent},
		{Title: "Check", Action: plan.ActionLLM, DependsOn: []string{"s1"}},
	}}}}
	require.NoError(t, checkOptions(&r))
	steps := r.Options[0].Steps
	assert.Equal(t, []string{"s2", "s1", "s3"}, []string{steps[0].ID, steps[1].ID, steps[2].ID})
	assert.Equal(t, "Think. about it", steps[0].Config.LLM.Prompt)
	assert.Equal(t, "Act.", steps[1].Config.Agent.Prompt)
}

func TestOptionFromReply(t *testing.T) {
	r := OptionReply{Title: "Fast", Description: "d", Pros: []string{"quick"}, Risks: []plan.Risk{{Description: "r"}},
		Steps: []StepReply{llmStep("s1", "a"), llmStep("s2", "b"), {ID: "s3", Title: "c", Action: plan.ActionAgent,
			Config:           plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "p", Tools: []string{"read_file"}}},
			EstimatedSeconds: 90}}}
	r.Estimates.DurationMinutes = 1.5
	r.Estimates.Complexity = plan.ComplexityLow
	r.Estimates.Confidence = 0.7
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := optionFromReply(r, "r1-o1", "t-r1-o1", plan.Task{ID: "t"}, now)

	assert.Equal(t, "r1-o1", o.ID)
	assert.Equal(t, "t-r1-o1", o.Plan.ID)
	assert.Equal(t, "t", o.Plan.TaskID)
	assert.Equal(t, 1, o.Plan.Version)
	assert.Equal(t, plan.PlanDraft, o.Plan.Status)
	assert.Equal(t, 4, o.Plan.NextStepSeq)
	assert.Equal(t, 90*time.Second, o.Plan.Estimates.Duration.D())
	assert.Equal(t, 0.7, o.Plan.Estimates.Confidence)
	require.Len(t, o.Plan.Steps, 3)
	for i, s := range o.Plan.Steps {
		assert.Equal(t, plan.StepPending, s.Status)
		assert.Equal(t, i+1, s.Number)
	}
	assert.Empty(t, o.Plan.Steps[0].DependsOn)
	assert.Equal(t, []string{"s1"}, o.Plan.Steps[1].DependsOn, "an ordered list runs in order")
	assert.Equal(t, []string{"s2"}, o.Plan.Steps[2].DependsOn)
	assert.Equal(t, 90*time.Second, o.Plan.Steps[2].Estimated.D())
	assert.Equal(t, []string{"read_file"}, o.Plan.Steps[2].RequiredTools)
	assert.True(t, plan.Validate(o.Plan, plan.Limits{}).Valid)
}

func TestCheckReflect(t *testing.T) {
	step := &plan.Step{Title: "New", Action: plan.ActionLLM}
	tests := []struct {
		name  string
		reply ReflectReply
		err   string
	}{
		{"continue", ReflectReply{Decision: plan.DecisionContinue}, ""},
		{"complete", ReflectReply{Decision: plan.DecisionComplete, Response: "done"}, ""},
		{"missing", ReflectReply{}, `"decision" is missing`},
		{"unknown", ReflectReply{Decision: "dance"}, "is not a decision"},
		{"skip without ids", ReflectReply{Decision: plan.DecisionSkip}, "stepIds"},
		{"skip", ReflectReply{Decision: plan.DecisionSkip, StepIDs: []string{"s3"}, Confidence: 0.9}, ""},
		{"bad confidence", ReflectReply{Decision: plan.DecisionSkip, StepIDs: []string{"s3"}, Confidence: 3}, "between 0"},
		{"insert without edits", ReflectReply{Decision: plan.DecisionInsert}, `"edits"`},
		{"insert without anchor", ReflectReply{Decision: plan.DecisionInsert,
			Edits: []plan.Edit{{Op: plan.OpInsertAfter, Step: step}}}, `needs "stepId"`},
		{"append without step", ReflectReply{Decision: plan.DecisionAppend, Edits: []plan.Edit{{Op: plan.OpAppend}}},
			`needs a "step"`},
		{"bad op", ReflectReply{Decision: plan.DecisionUpdate, Edits: []plan.Edit{{Op: "move", StepID: "s1"}}},
			`unknown op "move"`},
		{"insert", ReflectReply{Decision: plan.DecisionInsert,
			Edits: []plan.Edit{{Op: plan.OpInsertAfter, StepID: "s1", Step: step}}}, ""},
		{"replan without steps", ReflectReply{Decision: plan.DecisionReplan}, `"steps"`},
		{"replan", ReflectReply{Decision: plan.DecisionReplan, Steps: []StepReply{llmStep("", "x")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkReflect(&tt.reply)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestReflectionFromReply(t *testing.T) {
	r := ReflectReply{Decision: plan.DecisionInsert, Reason: "more work", Edits: []plan.Edit{
		{Op: plan.OpInsertAfter, StepID: "s1", Step: &plan.Step{Title: "Extra", Action: plan.ActionLLM}}}}
	require.NoError(t, checkReflect(&r))
	refl := reflectionFromReply(r)
	assert.Equal(t, plan.DecisionInsert, refl.Decision)
	require.Len(t, refl.Edits, 1)
	assert.Equal(t, plan.StepPending, refl.Edits[0].Step.Status)
	assert.Equal(t, "Extra.", refl.Edits[0].Step.Config.LLM.Prompt, "a missing llm config is filled")
}
