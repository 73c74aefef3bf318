package signals

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestExternalPlanFillsIdsAndResetsRuntimeFields(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := ExternalPlan{Steps: []plan.Step{
		{Title: "first", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "a"}}},
		{ID: "s1", Title: "named", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "b"}},
			Status: plan.StepCompleted, Result: &plan.StepResult{Success: true}, EndedAt: &at, Number: 9},
	}}
	p := e.Plan("wf-external", "wf", "the goal", at)
	require.Len(t, p.Steps, 2)
	assert.Equal(t, "s2", p.Steps[0].ID, "a missing id skips the ids the caller chose")
	assert.Equal(t, "s1", p.Steps[1].ID)
	for i, s := range p.Steps {
		assert.Equal(t, i+1, s.Number)
		assert.Equal(t, plan.StepPending, s.Status)
		assert.Nil(t, s.Result)
		assert.Nil(t, s.EndedAt)
	}
	assert.Equal(t, "the goal", p.Title, "no title takes the goal")
	assert.Equal(t, 1, p.Version)
	assert.True(t, plan.Validate(p, plan.Limits{Tools: plan.BuiltinTools()}).Valid)
	assert.Nil(t, e.Steps[0].Result, "the caller's steps are left as they were")
	assert.Empty(t, e.Steps[0].ID)
}

func TestValidateChecksTheExternalPlanWithTheRunLimits(t *testing.T) {
	steps := make([]plan.Step, 3)
	for i := range steps {
		steps[i] = plan.Step{Title: "x", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "p"}}}
	}
	req := StartRequest{Goal: "g", Plan: &ExternalPlan{Steps: steps}}
	require.NoError(t, req.Validate())

	req.Execution.MaxSteps = 2
	err := req.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plan: TOO_MANY_STEPS")

	req.Execution.MaxSteps = 0
	req.Plan.Steps[1].DependsOn = []string{"ghost"}
	err = req.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ghost")
}

// bigPlan is a request handing in n llm steps whose prompts are prompt
// bytes long.
func bigPlan(n, prompt int) StartRequest {
	steps := make([]plan.Step, n)
	for i := range steps {
		steps[i] = plan.Step{Title: fmt.Sprintf("Part %d", i+1), Action: plan.ActionLLM,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: strings.Repeat("p", prompt)}}}
	}
	return StartRequest{Goal: "g", Plan: &ExternalPlan{Steps: steps}, Execution: ExecutionPolicy{MaxSteps: n}}
}

func TestAPlanOfMaxStepsFitsItsOwnBound(t *testing.T) {
	require.NoError(t, bigPlan(plan.MaxPlanSteps, 400).Validate(),
		"a thousand steps with 400-byte prompts pass the request's 256 KiB: the plan has its own bound")
	err := bigPlan(plan.MaxPlanSteps, 1200).Validate()
	assert.ErrorContains(t, err, "plan is")
	assert.ErrorContains(t, err, "at most 1048576 (1 MiB)")
}
