package reply

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestPlanOption(t *testing.T) {
	r := Option{Title: "Fast", Description: "d", Pros: []string{"quick"}, Risks: []Risk{{Description: "r"}},
		Steps: []Step{llmStep("s1", "a"), llmStep("s2", "b"), {ID: "s3", Title: "c", Action: plan.ActionAgent,
			Config:           StepConfig{Agent: &plan.AgentConfig{Prompt: "p", Tools: []string{"read_file"}}},
			EstimatedSeconds: 90}}}
	r.Estimates.DurationMinutes = 1.5
	r.Estimates.Complexity = plan.ComplexityLow
	r.Estimates.Confidence = 0.7
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := r.PlanOption("r1-o1", "t-r1-o1", plan.Task{ID: "t"}, now)

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

func TestReflection(t *testing.T) {
	r := Reflect{Decision: plan.DecisionInsert, Reason: "more work", Edits: []Edit{
		{Op: plan.OpInsertAfter, StepID: "s1", Step: &Step{Title: "Extra", Action: plan.ActionLLM}}}}
	require.NoError(t, r.Check())
	refl := r.Reflection()
	assert.Equal(t, plan.DecisionInsert, refl.Decision)
	require.Len(t, refl.Edits, 1)
	assert.Equal(t, plan.StepPending, refl.Edits[0].Step.Status)
	assert.Equal(t, "Extra.", refl.Edits[0].Step.Config.LLM.Prompt, "a missing llm config is filled")
}

func TestToolParamsRoundTrip(t *testing.T) {
	cfg, err := ConfigOf(plan.StepConfig{Tool: &plan.ToolConfig{Name: "search_code",
		Params: map[string]any{"pattern": "func Login", "max": 3.0}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"max":3,"pattern":"func Login"}`, string(cfg.Tool.Params))
	s := Step{ID: "s1", Title: "Find", Action: plan.ActionTool, Config: cfg}
	steps := PlanSteps([]Step{s}, true)
	assert.Equal(t, map[string]any{"pattern": "func Login", "max": 3.0}, steps[0].Config.Tool.Params)

	none, err := ConfigOf(plan.StepConfig{Tool: &plan.ToolConfig{Name: "list_files", Params: map[string]any{}}})
	require.NoError(t, err)
	assert.Nil(t, none.Tool.Params, "no params are left out, as plan.ToolConfig leaves them")
	_, err = ConfigOf(plan.StepConfig{Tool: &plan.ToolConfig{Name: "x", Params: map[string]any{"c": make(chan int)}}})
	assert.Error(t, err)
}

func TestUpdateEditChangesOnlyWhatItGives(t *testing.T) {
	r := Reflect{Decision: plan.DecisionUpdate, Reason: "sharper", Edits: []Edit{
		{Op: plan.OpUpdate, StepID: "s2", Step: &Step{Description: "Only the cart", EstimatedSeconds: 30}}}}
	require.NoError(t, r.Check())
	got := r.Reflection().Edits[0].Step
	assert.Equal(t, &plan.Step{Description: "Only the cart", Estimated: plan.Duration(30 * time.Second)}, got,
		"no status, title or config is made up for an update")
}

func TestPlanStepsTellsAbsentDependsOnFromEmpty(t *testing.T) {
	decode := func(t *testing.T, raw string) []plan.Step {
		t.Helper()
		var o Options
		require.NoError(t, json.Unmarshal([]byte(raw), &o))
		require.NoError(t, o.Check(0))
		return o.Options[0].PlanOption("o", "p", plan.Task{}, time.Time{}).Plan.Steps
	}
	const head = `{"options":[{"title":"A","steps":[`
	tests := []struct {
		name  string
		steps string
		want  [][]string
	}{
		{"no step carries the field: an ordered list",
			`{"id":"s1","title":"a","action":"llm"},{"id":"s2","title":"b","action":"llm"},{"id":"s3","title":"c","action":"llm"}`,
			[][]string{nil, {"s1"}, {"s2"}}},
		{"every step independent",
			`{"id":"s1","title":"a","action":"llm","dependsOn":[]},{"id":"s2","title":"b","action":"llm","dependsOn":[]},{"id":"s3","title":"c","action":"llm","dependsOn":[]}`,
			[][]string{{}, {}, {}}},
		{"one list given: the others are independent",
			`{"id":"s1","title":"a","action":"llm"},{"id":"s2","title":"b","action":"llm"},{"id":"s3","title":"c","action":"llm","dependsOn":["s1","s2"]}`,
			[][]string{nil, nil, {"s1", "s2"}}},
		{"null is absent",
			`{"id":"s1","title":"a","action":"llm","dependsOn":null},{"id":"s2","title":"b","action":"llm"}`,
			[][]string{nil, {"s1"}}},
		{"an ordered list leaves its fallback out of the chain",
			`{"id":"s1","title":"a","action":"llm","fallbackStepId":"s2"},{"id":"s2","title":"b","action":"llm"},{"id":"s3","title":"c","action":"llm"}`,
			[][]string{nil, nil, {"s1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := decode(t, head+tt.steps+`]}]}`)
			require.Len(t, steps, len(tt.want))
			for i, w := range tt.want {
				assert.Equal(t, w, steps[i].DependsOn, "step %d", i+1)
			}
		})
	}
}

func TestIndependentStepsAreReadyTogether(t *testing.T) {
	r := Option{Title: "Fan out", Steps: []Step{llmStep("s1", "a"), llmStep("s2", "b"), llmStep("s3", "c"),
		llmStep("s4", "join", "s1", "s2", "s3")}}
	for i := range 3 {
		r.Steps[i].DependsOn = Deps()
	}
	o := r.PlanOption("o", "p", plan.Task{}, time.Time{})
	require.True(t, plan.Validate(o.Plan, plan.Limits{}).Valid)
	assert.Equal(t, []string{"s1", "s2", "s3"}, o.Plan.Ready())
}
