package activities_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
)

// toolSpecs offers fixed tools.
type toolSpecs []llm.ToolSpec

// Specs returns every spec named, all for none.
func (s toolSpecs) Specs(names []string) []llm.ToolSpec {
	if len(names) == 0 {
		return s
	}
	var out []llm.ToolSpec
	for _, spec := range s {
		for _, n := range names {
			if n == spec.Name {
				out = append(out, spec)
			}
		}
	}
	return out
}

func TestAgentTurnsWithToolResultBetween(t *testing.T) {
	srv := serve(t)
	srv.Enqueue(activities.PhaseAgent,
		offline.Reply{ToolCalls: []offline.ToolCall{{Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		offline.Reply{Content: "main.go prints hello"})
	specs := toolSpecs{{Name: "read_file", Description: "Read a file",
		Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "write_file", Description: "Write a file"}}
	a := over(srv, llm.Config{})
	a.ToolSpecs = specs
	step := plan.Step{ID: "s1", Title: "Read main", Action: plan.ActionAgent,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "What does main.go print?", Tools: []string{"read_file"}}}}
	in := activities.AgentTurnInput{StepInput: activities.StepInput{
		Context: plan.StepContext{Goal: "g", Step: step, Position: 1, Total: 1}}, Iteration: 1, MaxIterations: 5}

	first, err := a.AgentTurn(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, first.ToolCalls, 1)
	call := first.ToolCalls[0]
	assert.Equal(t, "read_file", call.Name)
	assert.JSONEq(t, `{"path":"main.go"}`, call.Arguments)
	assert.NotEmpty(t, call.ID)

	in.Iteration = 2
	in.Transcript = []activities.Message{
		{Role: llm.RoleAssistant, Content: first.Content, ToolCalls: first.ToolCalls},
		{Role: llm.RoleTool, ToolCallID: call.ID, Content: `fmt.Println("hello")`},
	}
	second, err := a.AgentTurn(context.Background(), in)
	require.NoError(t, err)
	assert.Empty(t, second.ToolCalls)
	assert.Equal(t, "main.go prints hello", second.Content)
	assert.Equal(t, 1, second.Usage.Calls)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	require.Len(t, reqs[0].Request.Tools, 2, "only the step's tools are offered, and finish_step")
	assert.Equal(t, "read_file", reqs[0].Request.Tools[0].Function.Name)
	assert.Equal(t, activities.FinishStep, reqs[0].Request.Tools[1].Function.Name)
	msgs := reqs[1].Request.Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, openai.ChatMessageRoleAssistant, msgs[2].Role)
	require.Len(t, msgs[2].ToolCalls, 1)
	assert.Equal(t, call.ID, msgs[2].ToolCalls[0].ID)
	assert.Equal(t, openai.ChatMessageRoleTool, msgs[3].Role)
	assert.Equal(t, call.ID, msgs[3].ToolCallID)
	assert.Contains(t, msgs[0].Content, "Iteration 2 of 5")
}

func TestUsageAndCostAddUp(t *testing.T) {
	srv := serve(t)
	srv.Enqueue(activities.PhaseClarify, offline.Reply{Content: "oops"},
		offline.JSONReply(reply.Clarify{Goal: "Add a README", NeedsPlan: true}))
	srv.Enqueue(activities.PhaseSummarize, offline.Reply{Content: "All done."})
	prices := llm.Pricing{"priced": {Input: 3, Output: 15}}
	a := over(srv, llm.Config{Model: "priced-2026"})
	a.Pricing = prices

	c, err := a.Clarify(context.Background(), activities.ClarifyInput{Task: plan.Task{Goal: "readme"}})
	require.NoError(t, err)
	s, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	require.NoError(t, err)

	total := c.Usage.Add(s.Usage)
	server := srv.Usage(offline.AnyPhase)
	assert.Equal(t, 3, total.Calls)
	assert.Equal(t, server.PromptTokens, total.PromptTokens)
	assert.Equal(t, server.CompletionTokens, total.CompletionTokens)
	assert.Equal(t, server.PromptTokens+server.CompletionTokens, total.TotalTokens)
	want := (float64(server.PromptTokens)*3 + float64(server.CompletionTokens)*15) / 1e6
	assert.InDelta(t, want, total.CostUSD, 1e-12)
	assert.Positive(t, total.CostUSD)

	unpriced := over(srv, llm.Config{Model: "mystery"})
	unpriced.Pricing = prices
	u, err := unpriced.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	require.NoError(t, err)
	assert.Positive(t, u.Usage.TotalTokens)
	assert.Zero(t, u.Usage.CostUSD, "an unknown model costs nothing")
}

func TestPerPhaseModelAndStepModel(t *testing.T) {
	srv := serve(t)
	warm := 0.9
	a := over(srv, llm.Config{Model: "small", Phases: map[string]llm.PhaseConfig{
		activities.PhaseSummarize: {Model: "large", Temperature: &warm}}})
	_, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	require.NoError(t, err)
	step := plan.Step{ID: "s1", Title: "t", Action: plan.ActionLLM,
		Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "p", Model: "special"}}}
	_, err = a.ExecuteLLMStep(context.Background(), activities.StepInput{Context: plan.StepContext{Step: step}})
	require.NoError(t, err)
	_, err = a.Clarify(context.Background(), activities.ClarifyInput{Task: plan.Task{Goal: "Add a README"}})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "large", reqs[0].Model)
	assert.InDelta(t, 0.9, reqs[0].Request.Temperature, 1e-6)
	assert.Equal(t, "special", reqs[1].Model)
	assert.Equal(t, "small", reqs[2].Model)
}

func TestPromptsReachTheServer(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	custom := activities.Prompts{System: "You work for ACME.", Phases: map[string]string{"summarizing": "Use bullets."}}
	_, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g", Prompts: custom})
	require.NoError(t, err)
	rec := srv.Requests()[0]
	assert.Equal(t, activities.PhaseSummarize, rec.Phase, "the server reads the phase line")
	system := rec.Request.Messages[0].Content
	assert.True(t, strings.HasPrefix(system, prompts.PhaseLine+activities.PhaseSummarize+"\n"))
	assert.Contains(t, system, "You work for ACME.")
	assert.Contains(t, system, "Use bullets.")
}

func TestTemplatePlanningMakesNoLLMCall(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	out, err := a.GenerateOptions(context.Background(), activities.OptionsInput{
		Task: plan.Task{ID: "wf", Goal: "Refactor the payment module"}, Count: 3, Template: plan.TemplateAuto})
	require.NoError(t, err)
	assert.Equal(t, "refactoring", out.FromTemplate)
	assert.Len(t, out.Options, 1)
	assert.Zero(t, srv.Calls(offline.AnyPhase))
}

// runPlan executes every step of an n-step llm plan in order, each with
// its bounded context, earlier steps done with long outputs, and returns
// the prompt tokens the server counted.
func runPlan(t *testing.T, n int) int {
	t.Helper()
	srv := serve(t)
	a := over(srv, llm.Config{})
	p := plan.Plan{ID: "p"}
	for i := 1; i <= n; i++ {
		p.Steps = append(p.Steps, plan.Step{ID: fmt.Sprintf("s%d", i), Number: i, Title: fmt.Sprintf("Step %d", i),
			Action: plan.ActionLLM, Status: plan.StepPending,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: fmt.Sprintf("Do part %d of the work", i)}}})
	}
	for i := range p.Steps {
		sc := plan.BuildStepContext("Write the report", &p, p.Steps[i].ID)
		res, err := a.ExecuteLLMStep(context.Background(), activities.StepInput{PlanID: p.ID, Context: sc})
		require.NoError(t, err)
		require.True(t, res.Success)
		p.Steps[i].Status = plan.StepCompleted
		p.Steps[i].Result = &plan.StepResult{Success: true, Output: strings.Repeat("long output ", 500)}
	}
	require.Equal(t, n, srv.Calls(activities.PhaseExecute))
	return srv.Usage(activities.PhaseExecute).PromptTokens
}

func TestPromptTokensGrowLinearlyWithPlanLength(t *testing.T) {
	// Each step's context is bounded, so once a plan is longer than a
	// step's window every further step costs the same: twenty more steps
	// cost as much from 40 to 60 as from 20 to 40 (step ids one digit
	// longer aside).
	t20, t40, t60 := runPlan(t, 20), runPlan(t, 40), runPlan(t, 60)
	first, second := t40-t20, t60-t40
	t.Logf("prompt tokens: 20 steps %d, 40 steps %d, 60 steps %d", t20, t40, t60)
	assert.InEpsilon(t, first, second, 0.02, "steps 21-40 cost %d, steps 41-60 %d", first, second)
	assert.LessOrEqual(t, t20, first+first/10, "the first twenty steps cost no more than the next twenty")
}
