// Package activities holds every side effect of a PlanMode run: LLM calls
// (clarify, generate options, run an llm step, one agent turn, reflect,
// summarize) behind a small LLM interface with a go-openai adapter, tool
// calls confined to a workspace, and workspace snapshots for rollback.
//
// The workflow calls these through method references on [Activities]; their
// inputs and outputs are the types in this package.
package activities

import (
	"context"
	"errors"

	"github.com/planmode/planmode/plan"
)

// Activities carries the dependencies of every activity. Its zero value is
// not usable; build it with New.
type Activities struct{}

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

// RunTool runs one tool call in the workspace.
func (a *Activities) RunTool(ctx context.Context, in ToolInput) (ToolOutput, error) {
	return ToolOutput{}, errUnimplemented
}

// Reflect decides what to do after a step.
func (a *Activities) Reflect(ctx context.Context, in ReflectInput) (plan.Reflection, error) {
	return plan.Reflection{}, errUnimplemented
}

// Summarize writes the final summary.
func (a *Activities) Summarize(ctx context.Context, in SummarizeInput) (SummarizeOutput, error) {
	return SummarizeOutput{}, errUnimplemented
}

// SnapshotWorkspace saves the workspace before execution.
func (a *Activities) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	return SnapshotOutput{}, errUnimplemented
}

// RestoreWorkspace puts a snapshot back.
func (a *Activities) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	return RestoreOutput{}, errUnimplemented
}
