package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

func TestOfflineModelPlansThroughTheAdapter(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	a.Offline = true
	task := plan.Task{ID: "wf", Goal: "Add input validation to the signup handler",
		Context: plan.TaskContext{CurrentFiles: []string{"go.mod", "main.go", "signup.go"}}}
	c, err := a.Clarify(context.Background(), activities.ClarifyInput{Task: task})
	require.NoError(t, err)
	assert.NotEmpty(t, c.Goal)
	assert.True(t, c.Offline)

	task.Goal = c.Goal
	out, err := a.GenerateOptions(context.Background(), activities.OptionsInput{Task: task, Count: 2,
		Revision: 1})
	require.NoError(t, err)
	require.Len(t, out.Options, 2)
	for _, o := range out.Options {
		res := plan.Validate(o.Plan, plan.Limits{})
		assert.True(t, res.Valid, "%s: %+v", o.Title, res.Errors)
	}
	assert.Equal(t, 1, srv.Calls(activities.PhasePlan), "the offline model's options need no repair")
}

// runStep runs one step of an offline run the way the workflow does: one
// completion for an llm step, agent turns with tool calls answered by a
// canned result for an agent step; tool steps are marked done unrun.
func runStep(t *testing.T, a activities.Set, goal string, p *plan.Plan, i int) {
	t.Helper()
	ctx := context.Background()
	s := &p.Steps[i]
	in := activities.StepInput{PlanID: p.ID, Context: plan.BuildStepContext(goal, p, s.ID)}
	res := plan.StepResult{Success: true, Output: "tool ran"}
	switch s.Action {
	case plan.ActionLLM:
		r, err := a.ExecuteLLMStep(ctx, in)
		require.NoError(t, err)
		res = r
	case plan.ActionAgent:
		turn := activities.AgentTurnInput{StepInput: in, MaxIterations: 6}
		for turn.Iteration = 1; turn.Iteration <= turn.MaxIterations; turn.Iteration++ {
			out, err := a.AgentTurn(ctx, turn)
			require.NoError(t, err)
			if len(out.ToolCalls) == 0 {
				res.Output = out.Content
				break
			}
			turn.Transcript = append(turn.Transcript, activities.Message{Role: llm.RoleAssistant,
				Content: out.Content, ToolCalls: out.ToolCalls})
			for _, c := range out.ToolCalls {
				turn.Transcript = append(turn.Transcript, activities.Message{Role: llm.RoleTool,
					ToolCallID: c.ID, Content: "main.go\nsignup.go"})
			}
		}
		require.LessOrEqual(t, turn.Iteration, turn.MaxIterations, "the agent answers within its cap")
	}
	s.Status, s.Result = plan.StepCompleted, &res
	assert.True(t, res.Success, "step %s: %s", s.ID, res.Error)
}

func TestOfflineModelRunsEveryPhase(t *testing.T) {
	srv := serve(t)
	a := over(srv, llm.Config{})
	a.Offline = true
	ctx := context.Background()
	goal := "Add input validation to the signup handler"
	task := plan.Task{ID: "wf", Goal: goal, Context: plan.TaskContext{CurrentFiles: []string{"go.mod", "signup.go"}}}
	opts, err := a.GenerateOptions(ctx, activities.OptionsInput{Task: task, Count: 1})
	require.NoError(t, err)
	p := opts.Options[0].Plan
	for i := range p.Steps {
		runStep(t, a, goal, &p, i)
		sc := plan.BuildStepContext(goal, &p, p.Steps[i].ID)
		r, err := a.Reflect(ctx, activities.ReflectInput{Context: sc, Result: p.Steps[i].Result})
		require.NoError(t, err)
		assert.NotEmpty(t, r.Decision)
	}
	digest := p.Digest()
	sum, err := a.Summarize(ctx, activities.SummarizeInput{Goal: goal, Digest: &digest, Status: "completed"})
	require.NoError(t, err)
	assert.Contains(t, sum.Summary, "offline")
	for _, phase := range []string{activities.PhasePlan, activities.PhaseReflect, activities.PhaseSummarize} {
		assert.Positive(t, srv.Calls(phase), phase)
	}
	assert.Equal(t, len(p.Steps), srv.Calls(activities.PhaseReflect), "no reflection needed a repair")
	assert.Positive(t, srv.Calls(activities.PhaseExecute)+srv.Calls(activities.PhaseAgent), "some step asked the model")
}
