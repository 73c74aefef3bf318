package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

func TestClarifyQuestionsOnlyWhenAllowed(t *testing.T) {
	answer := `{"goal":"Add JWT login","needsPlan":true,"questions":["Which library?"]}`
	for _, allowed := range []bool{false, true} {
		t.Run(fmt.Sprint(allowed), func(t *testing.T) {
			a, model := newScripted(text(answer))
			out, err := a.Clarify(context.Background(), ClarifyInput{Task: plan.Task{Goal: "auth"}, AskQuestions: allowed})
			require.NoError(t, err)
			assert.Equal(t, "Add JWT login", out.Goal)
			assert.Empty(t, out.DirectAnswer)
			if allowed {
				assert.Equal(t, []string{"Which library?"}, out.Questions)
				assert.Contains(t, model.requests[0].Messages[1].Content, "questions allowed: yes")
			} else {
				assert.Empty(t, out.Questions)
				assert.Contains(t, model.requests[0].Messages[1].Content, "questions allowed: no")
			}
			assert.Equal(t, 1, out.Usage.Calls)
		})
	}
}

func TestClarifyDirectAnswerAndOffline(t *testing.T) {
	model := &scriptLLM{replies: []scripted{text(`{"goal":"What is 2+2?","needsPlan":false,"directAnswer":"4"}`),
		text(`{"goal":"","needsPlan":false}`)}}
	a := worker{LLM: model, Offline: true}.set()
	out, err := a.Clarify(context.Background(), ClarifyInput{Task: plan.Task{Goal: "What is 2+2?"}})
	require.NoError(t, err)
	assert.Equal(t, "4", out.DirectAnswer)
	assert.True(t, out.Offline)

	out, err = a.Clarify(context.Background(), ClarifyInput{Task: plan.Task{Goal: "tidy up"}})
	require.NoError(t, err)
	assert.Equal(t, "tidy up", out.Goal, "no goal in the reply keeps the task's")
	assert.Empty(t, out.DirectAnswer, "no plan needed without an answer reads as needing a plan")
}

func TestGenerateOptionsFromTemplateMakesNoCall(t *testing.T) {
	tests := []struct{ template, want string }{{"bug_fix", "bug_fix"}, {plan.TemplateAuto, "bug_fix"}}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			a, model := newScripted()
			out, err := a.GenerateOptions(context.Background(), OptionsInput{
				Task: plan.Task{ID: "wf", Goal: "Fix the crash in the login handler"}, Count: 3, Revision: 2,
				Template: tt.template})
			require.NoError(t, err)
			assert.Equal(t, 0, model.calls())
			assert.Equal(t, tt.want, out.FromTemplate)
			require.Len(t, out.Options, 1)
			o := out.Options[0]
			assert.Equal(t, "r2-o1", o.ID)
			assert.Equal(t, "wf-r2-o1", o.Plan.ID)
			assert.Contains(t, o.Description, "(3 were asked for)")
			assert.Positive(t, o.Plan.Estimates.Tokens)
			assert.True(t, plan.Validate(o.Plan, plan.Limits{}).Valid)
			assert.Zero(t, out.Usage.Calls)
		})
	}
}

func TestGenerateOptionsUnknownTemplate(t *testing.T) {
	a, model := newScripted()
	_, err := a.GenerateOptions(context.Background(), OptionsInput{Task: plan.Task{Goal: "x"}, Template: "nope"})
	appErr := appError(t, err)
	assert.Equal(t, string(ErrorTypeUnknownTemplate), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Message(), "bug_fix")
	assert.Equal(t, 0, model.calls())
}

// optionsJSON returns an options reply with n options of steps steps each.
func optionsJSON(t *testing.T, n, steps int) string {
	t.Helper()
	var r reply.Options
	for i := 0; i < n; i++ {
		o := reply.Option{Title: fmt.Sprintf("Option %d", i+1), Description: "d"}
		for j := 0; j < steps; j++ {
			title := fmt.Sprintf("step %d", j+1)
			o.Steps = append(o.Steps, reply.Step{Title: title, Action: plan.ActionLLM,
				Config: reply.StepConfig{LLM: &plan.LLMConfig{Prompt: "do " + title}}})
		}
		r.Options = append(r.Options, o)
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return string(b)
}

func TestGenerateOptionsFromLLM(t *testing.T) {
	a, model := newScripted(text(optionsJSON(t, 4, 9)), text(optionsJSON(t, 4, 2)))
	out, err := a.GenerateOptions(context.Background(), OptionsInput{
		Task:  plan.Task{ID: "wf", Goal: "Fix the nil crash in login", Context: plan.TaskContext{CurrentFiles: []string{"go.mod"}}},
		Count: 2, Revision: 1, MaxSteps: 5, Feedback: "smaller",
		Previous: []plan.Option{{Title: "Big bang"}}, Template: plan.TemplateAuto})
	require.NoError(t, err)
	require.Equal(t, 2, model.calls(), "9 steps break the limit of 5: one repair")
	assert.Contains(t, model.requests[1].Messages[3].Content, "has 9 steps; the most allowed is 5")

	user := model.requests[0].Messages[1].Content
	for _, want := range []string{"Generate 2 options, each with at most 5 steps", "Goal: Fix the nil crash in login",
		"Big bang", "smaller", "- go.mod", `"options"`} {
		assert.Contains(t, user, want)
	}
	require.Len(t, out.Options, 2, "extra options are dropped")
	assert.Equal(t, []string{"r1-o1", "r1-o2"}, []string{out.Options[0].ID, out.Options[1].ID})
	assert.Equal(t, "wf-r1-o2", out.Options[1].Plan.ID)
	assert.Equal(t, []string{"s1"}, out.Options[0].Plan.Steps[1].DependsOn)
	assert.Equal(t, 2, out.Usage.Calls)
}

func TestExecuteLLMStep(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	model := &scriptLLM{replies: []scripted{text(long), text("  ")}}
	a := worker{LLM: model, OutputLimit: 1000}.set()
	temp := 0.2
	step := plan.Step{ID: "s1", Title: "Explain", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{
		Prompt: "Explain the code", Model: "gpt-4o-mini", Temperature: &temp, MaxTokens: 300, SystemPrompt: "Be brief."}}}
	in := StepInput{Context: plan.StepContext{Goal: "g", Step: step, Position: 1, Total: 1}}

	res, err := a.ExecuteLLMStep(context.Background(), in)
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.True(t, res.OutputTruncated)
	assert.LessOrEqual(t, len(res.Output), 1000)
	assert.Contains(t, res.Output, "output truncated to 1000 of 10000 bytes")
	assert.Equal(t, 1, res.Usage.Calls)
	req := model.requests[0]
	assert.Equal(t, "gpt-4o-mini", req.Model)
	assert.Equal(t, &temp, req.Temperature)
	assert.Equal(t, 300, req.MaxTokens)
	assert.True(t, strings.HasSuffix(req.Messages[0].Content, "Be brief."))
	assert.Contains(t, req.Messages[1].Content, "Explain the code")

	res, err = a.ExecuteLLMStep(context.Background(), in)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, "the model returned an empty reply", res.Error)
}

// staticSpecs hands out fixed tool specs.
type staticSpecs []llm.ToolSpec

// Specs returns the named specs, all for none.
func (s staticSpecs) Specs(names []string) []llm.ToolSpec {
	if len(names) == 0 {
		return s
	}
	var out []llm.ToolSpec
	for _, spec := range s {
		for _, n := range names {
			if spec.Name == n {
				out = append(out, spec)
			}
		}
	}
	return out
}

func TestAgentTurnToolsAndIterations(t *testing.T) {
	specs := staticSpecs{{Name: "read_file"}, {Name: "write_file"}, {Name: "list_files"}}
	model := &scriptLLM{replies: []scripted{
		{resp: llm.Response{ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}}},
		text("done")}}
	a := worker{LLM: model, ToolSpecs: specs}.set()
	step := plan.Step{ID: "s2", Title: "Edit", Action: plan.ActionAgent,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "Fix a.go", Tools: []string{"read_file", "write_file"}}}}
	in := AgentTurnInput{StepInput: StepInput{Context: plan.StepContext{Step: step, Position: 2, Total: 3}},
		Iteration: 1, MaxIterations: 4}

	out, err := a.AgentTurn(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, out.ToolCalls, 1)
	assert.Equal(t, "read_file", out.ToolCalls[0].Name)
	first := model.requests[0]
	assert.Equal(t, []string{"read_file", "write_file", FinishStep}, toolNames(first.Tools),
		"the step's tools, and finish_step, by which any agent step ends")
	assert.Contains(t, first.Messages[0].Content, "Iteration 1 of 4.",
		"the turn and the cap: what is left follows from them")
	assert.NotContains(t, first.Messages[0].Content, "left after this one")

	in.Iteration = 4
	in.Transcript = []Message{{Role: llm.RoleAssistant, ToolCalls: out.ToolCalls},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: strings.Repeat("y", 20_000)}}
	out, err = a.AgentTurn(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "done", out.Content)
	last := model.requests[1]
	assert.Empty(t, last.Tools, "the last iteration offers no tools")
	assert.Contains(t, last.Messages[0].Content, "This is your last iteration")
	require.Len(t, last.Messages, 4)
	assert.LessOrEqual(t, len(last.Messages[3].Content), 8<<10, "a tool result is cut to 8 KiB")
}

func TestSummarizeBoundsStepsAndFallsBack(t *testing.T) {
	a, model := newScripted(text(""))
	p := plan.Plan{Title: "Big"}
	for i := 1; i <= 100; i++ {
		p.Steps = append(p.Steps, plan.Step{ID: fmt.Sprintf("s%d", i), Title: "t", Status: plan.StepCompleted,
			Result: &plan.StepResult{Success: true, Output: strings.Repeat("z", 5000)}})
	}
	out, err := a.Summarize(context.Background(), SummarizeInput{Goal: "g", Digest: ptr(p.Digest()), Status: "completed"})
	require.NoError(t, err)
	assert.Contains(t, out.Summary, "100 of 100 steps completed")
	user := model.requests[0].Messages[1].Content
	assert.Contains(t, user, "(40 more steps are not listed.)")
	assert.Less(t, len(user), 60*(200+40)+1000, "60 steps listed, each digest cut to 200 bytes")
}

// Without a model every LLM activity fails for good, saying why; the
// worker builds the model (worker/planworker).
func TestNoLLMConfigured(t *testing.T) {
	_, err := worker{}.set().Summarize(context.Background(), SummarizeInput{Goal: "g"})
	appErr := appError(t, err)
	assert.Equal(t, string(llm.ErrorTypeConfig), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Message(), "no LLM is configured")
}

func TestAgentTurnDefaultsToTheToolsRunToolRuns(t *testing.T) {
	a, model := newScripted(text("done"))
	step := plan.Step{ID: "s1", Title: "Look", Action: plan.ActionAgent,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "Look around", Tools: []string{"list_files", "nope"}}}}
	_, err := a.AgentTurn(context.Background(), AgentTurnInput{
		StepInput: StepInput{Context: plan.StepContext{Step: step}}, Iteration: 1, MaxIterations: 3})
	require.NoError(t, err)
	assert.Equal(t, []string{"list_files", FinishStep}, toolNames(model.requests[0].Tools),
		"unknown tool names are left out; finish_step is offered to every agent step")
	assert.NotEmpty(t, model.requests[0].Tools[0].Parameters)
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
