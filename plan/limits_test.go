package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateRefusesWhatIsBeyondTheBounds(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	temp := func(f float64) *float64 { return &f }
	tests := []struct {
		name   string
		mutate func(p *Plan)
		lim    Limits
		code   string
		msg    string
	}{
		{"retries", func(p *Plan) { p.Steps[0].MaxRetries = 1000000 }, Limits{},
			CodeInvalidRetries, "maxRetries 1000000: at most 10"},
		{"negative retries", func(p *Plan) { p.Steps[0].MaxRetries = -1 }, Limits{},
			CodeInvalidRetries, "maxRetries -1 must not be negative"},
		{"retry delay", func(p *Plan) { p.Steps[0].RetryDelay = Duration(2 * time.Hour) }, Limits{},
			CodeInvalidRetries, "retryDelay 2h0m0s: at most 1h0m0s"},
		{"negative retry delay", func(p *Plan) { p.Steps[0].RetryDelay = Duration(-time.Second) }, Limits{},
			CodeInvalidRetries, "retryDelay -1s must not be negative"},
		{"estimate", func(p *Plan) { p.Steps[0].Estimated = Duration(-time.Second) }, Limits{},
			CodeOutOfRange, "estimated -1s must not be negative"},
		{"steps over the hard cap", func(p *Plan) { *p = chain(MaxPlanSteps + 1) }, Limits{MaxSteps: 1000},
			CodeTooManySteps, "plan has 1001 steps, more than the maximum of 1000"},
		{"steps over the run's bound", func(p *Plan) {}, Limits{MaxSteps: 2},
			CodeTooManySteps, "more than the maximum of 2"},
		{"id", func(p *Plan) { p.Steps[2].ID = long(65) }, Limits{},
			CodeTooLarge, "id is 65 bytes: at most 64"},
		{"title", func(p *Plan) { p.Steps[0].Title = long(MaxTitleBytes + 1) }, Limits{},
			CodeTooLarge, "title is 1025 bytes: at most 1024"},
		{"plan description", func(p *Plan) { p.Description = long(MaxStepTextBytes + 1) }, Limits{},
			CodeTooLarge, "description is 16385 bytes: at most 16384"},
		{"description", func(p *Plan) { p.Steps[0].Description = long(MaxStepTextBytes + 1) }, Limits{},
			CodeTooLarge, "description is 16385 bytes: at most 16384"},
		{"prompt", func(p *Plan) { p.Steps[0].Config.LLM.Prompt = long(MaxStepTextBytes + 1) }, Limits{},
			CodeTooLarge, "config.llm.prompt is 16385 bytes: at most 16384"},
		{"system prompt", func(p *Plan) { p.Steps[0].Config.LLM.SystemPrompt = long(MaxStepTextBytes + 1) }, Limits{},
			CodeTooLarge, "config.llm.systemPrompt is 16385 bytes"},
		{"temperature", func(p *Plan) { p.Steps[0].Config.LLM.Temperature = temp(3) }, Limits{},
			CodeOutOfRange, "config.llm.temperature 3: want 0 to 2"},
		{"max tokens", func(p *Plan) { p.Steps[0].Config.LLM.MaxTokens = -5 }, Limits{},
			CodeOutOfRange, "config.llm.maxTokens -5 must not be negative"},
		{"tool params", func(p *Plan) {
			p.Steps[0].Action = ActionTool
			p.Steps[0].Config.Tool = &ToolConfig{Name: ToolWriteFile, Params: map[string]any{"content": long(MaxToolParamsBytes)}}
		}, Limits{}, CodeTooLarge, "config.tool.params are 16398 bytes of JSON: at most 16384"},
		{"agent iterations", func(p *Plan) { p.Steps[0] = agentStep("s1", 1000) }, Limits{},
			CodeOutOfRange, "config.agent.maxIterations 1000: at most 50"},
		{"agent iterations over the run's bound", func(p *Plan) { p.Steps[0] = agentStep("s1", 20) }, Limits{MaxIterations: 16},
			CodeOutOfRange, "config.agent.maxIterations 20: at most 16"},
		{"agent tools", func(p *Plan) {
			p.Steps[0] = agentStep("s1", 0)
			p.Steps[0].Config.Agent.Tools = make([]string, MaxStepTools+1)
		}, Limits{}, CodeTooLarge, "config.agent.tools has 33 entries: at most 32"},
		{"dependencies", func(p *Plan) { p.Steps[1].DependsOn = slicesOf("s1", MaxPlanSteps+1) }, Limits{},
			CodeTooLarge, "dependsOn has 1001 entries: at most 1000"},
		{"condition", func(p *Plan) { p.Steps[2].SkipCondition = strings.Repeat("s1.done || ", 100) + "s1.done" }, Limits{},
			CodeInvalidCondition, "condition is 1107 bytes: at most 1024"},
		{"unknown tool", func(p *Plan) {
			p.Steps[0].Action = ActionTool
			p.Steps[0].Config.Tool = &ToolConfig{Name: "rm_rf"}
		}, Limits{Tools: BuiltinTools()}, CodeUnknownTool, `config.tool.name "rm_rf" is not a known tool: want one of delete_file, `},
		{"unknown agent tool", func(p *Plan) {
			p.Steps[0] = agentStep("s1", 0)
			p.Steps[0].Config.Agent.Tools = []string{ToolReadFile, "teleport"}
		}, Limits{Tools: BuiltinTools()}, CodeUnknownTool, `config.agent.tools "teleport" is not a known tool`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := chain(3)
			tt.mutate(&p)
			res := Validate(p, tt.lim)
			require.False(t, res.Valid)
			require.Len(t, res.Errors, 1, res.Messages())
			assert.Equal(t, tt.code, res.Errors[0].Code)
			assert.Contains(t, res.Errors[0].Message, tt.msg)
		})
	}
}

func TestValidateAcceptsWhatIsAtTheBounds(t *testing.T) {
	p := chain(MaxPlanSteps)
	s := &p.Steps[0]
	s.MaxRetries, s.RetryDelay, s.Estimated = MaxStepRetries, MaxRetryDelay, MaxStepEstimate
	s.Title, s.Description = strings.Repeat("t", MaxTitleBytes), strings.Repeat("d", MaxStepTextBytes)
	s.Config.LLM.Prompt = strings.Repeat("p", MaxStepTextBytes)
	p.Steps[1] = agentStep("s2", MaxAgentIterations)
	p.Steps[1].DependsOn = []string{"s1"}
	p.Steps[2].Action = ActionTool
	p.Steps[2].Config.Tool = &ToolConfig{Name: ToolRunTests, Params: map[string]any{"k": strings.Repeat("v", MaxToolParamsBytes-8)}}
	res := Validate(p, Limits{Tools: BuiltinTools()})
	assert.True(t, res.Valid, res.Messages())
}

func TestTemplatesNameOnlyBuiltinTools(t *testing.T) {
	for _, tmpl := range Templates() {
		p := FromTemplate(tmpl, Task{ID: "t", Goal: "Fix the login bug"}, "p", t0)
		res := Validate(p, Limits{Tools: BuiltinTools()})
		assert.True(t, res.Valid, "%s: %v", tmpl.Name, res.Messages())
	}
}

func TestEditsKeepTheBounds(t *testing.T) {
	t.Run("a retry storm is refused", func(t *testing.T) {
		p := chain(3)
		before := p.Clone()
		err := p.Apply([]Edit{{Op: OpUpdate, StepID: "s2", Step: &Step{MaxRetries: 1000000}}}, change("retry harder"))
		var ee *EditError
		require.True(t, errors.As(err, &ee), "%v", err)
		assert.Equal(t, EditInvalidPlan, ee.Code)
		assert.Contains(t, err.Error(), "maxRetries 1000000: at most 10")
		assert.Equal(t, before, p, "a refused edit changes nothing")
	})
	t.Run("the run's limits travel with the change", func(t *testing.T) {
		p := chain(3)
		c := change("more")
		c.Within = Limits{MaxSteps: 3, Tools: BuiltinTools()}
		err := p.Append(llmStep("s4", "s3"), c)
		assert.ErrorContains(t, err, "plan has 4 steps, more than the maximum of 3")
		tool := llmStep("t1")
		tool.Action, tool.Config = ActionTool, StepConfig{Tool: &ToolConfig{Name: "launch_missiles"}}
		c.Within.MaxSteps = 0
		err = p.Append(tool, c)
		assert.ErrorContains(t, err, `"launch_missiles" is not a known tool`)
		assert.Len(t, p.Steps, 3)
	})
	t.Run("an over-bound plan can still be repaired", func(t *testing.T) {
		p := chain(3)
		p.Steps[1].MaxRetries = 99
		require.NoError(t, p.UpdateStep("s2", Step{Title: "Renamed"}, change("rename")))
		require.NoError(t, p.UpdateStep("s2", Step{MaxRetries: 3}, change("fix")))
		assert.True(t, Validate(p, Limits{}).Valid)
	})
}

func TestEditCheck(t *testing.T) {
	step := &Step{Title: "x"}
	tests := []struct {
		edit Edit
		want string
	}{
		{Edit{Op: OpInsertAfter, StepID: "s1", Step: step}, ""},
		{Edit{Op: OpAppend, Step: step}, ""},
		{Edit{Op: OpRemove, StepID: "s1"}, ""},
		{Edit{Op: "explode", StepID: "s1"}, `unknown edit op "explode"`},
		{Edit{Op: OpUpdate, Step: step}, "update needs a stepId"},
		{Edit{Op: OpInsertBefore, StepID: "s1"}, "insertBefore needs a step"},
		{Edit{Op: OpRemove, StepID: "s1", Step: step}, "remove takes no step"},
		{Edit{Op: OpRemoveAfter, StepID: "s1", Step: step}, "removeAfter takes no step"},
		{Edit{Op: OpAppend, StepID: "s1", Step: step}, "append takes no stepId"},
		{Edit{Op: OpRemove, StepID: strings.Repeat("i", 65)}, "stepId is 65 bytes: at most 64"},
	}
	for _, tt := range tests {
		err := tt.edit.Check()
		if tt.want == "" {
			assert.NoError(t, err, "%+v", tt.edit)
			continue
		}
		var ee *EditError
		require.True(t, errors.As(err, &ee), "%+v: %v", tt.edit, err)
		assert.Equal(t, EditInvalidEdit, ee.Code)
		assert.Contains(t, err.Error(), tt.want)
	}
}

func TestConditionNestingIsBounded(t *testing.T) {
	ok := strings.Repeat("!", MaxConditionDepth) + "s1.done"
	_, err := ConditionSteps(ok)
	require.NoError(t, err)
	deep := strings.Repeat("(", MaxConditionDepth+1) + "s1.done" + strings.Repeat(")", MaxConditionDepth+1)
	_, err = ConditionSteps(deep)
	assert.ErrorContains(t, err, fmt.Sprintf("nested deeper than %d", MaxConditionDepth))
}

// agentStep returns a valid agent step with iters iterations.
func agentStep(id string, iters int) Step {
	return Step{ID: id, Title: "Agent " + id, Action: ActionAgent, Status: StepPending,
		Config: StepConfig{Agent: &AgentConfig{Prompt: "explore", MaxIterations: iters}}}
}

func slicesOf(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
