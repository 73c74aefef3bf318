package activities

import (
	"context"
	"errors"

	"github.com/planmode/planmode/plan"
)

// llmDeps are the LLM side's dependencies.
type llmDeps struct{}

var errUnimplemented = errors.New("unimplemented")

// Clarify rewrites a vague goal, answers it directly, or asks questions.
func (a *Activities) Clarify(ctx context.Context, in ClarifyInput) (ClarifyOutput, error) {
	return ClarifyOutput{}, errUnimplemented
}

// GenerateOptions produces plan options from a template or the LLM.
func (a *Activities) GenerateOptions(ctx context.Context, in OptionsInput) (OptionsOutput, error) {
	return OptionsOutput{}, errUnimplemented
}

// ExecuteLLMStep runs an llm step: one completion.
func (a *Activities) ExecuteLLMStep(ctx context.Context, in StepInput) (plan.StepResult, error) {
	return plan.StepResult{}, errUnimplemented
}

// AgentTurn runs one turn of an agent step.
func (a *Activities) AgentTurn(ctx context.Context, in AgentTurnInput) (AgentTurnOutput, error) {
	return AgentTurnOutput{}, errUnimplemented
}

// Reflect decides what to do after a step.
func (a *Activities) Reflect(ctx context.Context, in ReflectInput) (plan.Reflection, error) {
	return plan.Reflection{}, errUnimplemented
}

// Summarize writes the final summary.
func (a *Activities) Summarize(ctx context.Context, in SummarizeInput) (SummarizeOutput, error) {
	return SummarizeOutput{}, errUnimplemented
}
