package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/tools"
)

// finishReason is what the fakes' finish_plan calls give as the reason.
const finishReason = "the discount already applies"

// finishingTools makes the runTool fake answer finish_plan as the real
// tool does (an exit with its reason) and every other tool plainly.
func (f *fakes) finishingTools() {
	f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		if in.Call.Name == tools.FinishPlan {
			return activities.ToolOutput{Success: true, Output: finishReason, ExitPlan: true, ExitReason: finishReason}, nil
		}
		return activities.ToolOutput{Success: true, Output: "ran " + in.Call.Name}, nil
	}
}

// requireEndedEarly checks a run that step id ended: it completed with the
// reason, the steps after it were skipped by the system with the reason,
// and the run completed with its summary.
func requireEndedEarly(t *testing.T, h *harness, res signals.Result, id string, skipped ...string) {
	t.Helper()
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "summary: completed", res.Summary, "the summary still runs")
	assert.Equal(t, 1, h.f.count("Summarize"))
	step := res.Plan.StepByID(id)
	require.NotNil(t, step)
	require.NotNil(t, step.Result)
	assert.Equal(t, plan.StepCompleted, step.Status)
	assert.True(t, step.Result.EndedPlan)
	assert.Equal(t, finishReason, step.Result.Output)
	for _, s := range skipped {
		assert.Equal(t, plan.StepSkipped, res.Plan.StepByID(s).Status, s)
		assert.Contains(t, res.Plan.StepByID(s).Note, finishReason, s)
	}
	assert.Equal(t, len(skipped), res.Metrics.StepsSkipped)
	require.NotEmpty(t, res.Plan.UpdateHistory)
	last := res.Plan.UpdateHistory[len(res.Plan.UpdateHistory)-1]
	assert.Equal(t, plan.UpdateSkip, last.Type)
	assert.Equal(t, plan.ActorSystem, last.Actor)
	assert.Equal(t, "step "+id+" finished the plan: "+finishReason, last.Reason)
	assert.Zero(t, h.f.count("ExecuteLLMStep"), "no later step runs")
	assert.Zero(t, h.f.count("Reflect"), "nothing is left to reflect on")
}

func TestAgentFinishPlanEndsTheRunEarly(t *testing.T) {
	h := newHarness(t)
	agent := agentStep("a1", 0)
	agent.Config.Agent.Tools = []string{"read_file", tools.FinishPlan, "write_file"}
	h.f.onePlan(agent, llmStep("s2", "a1"), llmStep("s3", "s2"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return activities.AgentTurnOutput{Content: "nothing to do", Usage: plan.Usage{TotalTokens: 4},
			ToolCalls: []activities.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"cart.go"}`},
				{ID: "c2", Name: tools.FinishPlan, Arguments: `{"reason":"` + finishReason + `"}`},
				{ID: "c3", Name: "write_file", Arguments: `{"path":"cart.go","content":""}`},
			}}, nil
	}
	h.f.finishingTools()
	res := h.run(autoReq())

	requireEndedEarly(t, h, res, "a1", "s2", "s3")
	assert.Equal(t, 1, h.f.count("AgentTurn"), "the step ends with the call, without another turn")
	assert.Equal(t, 2, h.f.count("RunTool"), "the turn's calls after finish_plan do not run")
	assert.Equal(t, 1, res.Plan.StepByID("a1").Result.Iterations)
	assert.Equal(t, 4, res.Plan.StepByID("a1").Result.Usage.TotalTokens)
}

func TestToolStepFinishPlanEndsTheRunEarly(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(toolStep("t1", tools.FinishPlan, map[string]any{"reason": finishReason}), llmStep("s2", "t1"), llmStep("s3", "s2"))
	h.f.finishingTools()
	res := h.run(autoReq())

	requireEndedEarly(t, h, res, "t1", "s2", "s3")
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.toolIn, 1)
	assert.JSONEq(t, `{"reason":"`+finishReason+`"}`, h.f.toolIn[0].Call.Arguments)
}

func TestRefusedFinishPlanEndsNothing(t *testing.T) {
	h := newHarness(t)
	agent := agentStep("a1", 0)
	agent.Config.Agent.Tools = []string{tools.FinishPlan}
	h.f.onePlan(agent, llmStep("s2", "a1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{ID: "c1", Name: tools.FinishPlan, Arguments: `{}`}}}, nil
		}
		return activities.AgentTurnOutput{Content: "done after all"}, nil
	}
	h.f.runTool = func(activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Error: `missing argument "reason"`}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, map[string]plan.StepStatus{"a1": plan.StepCompleted, "s2": plan.StepCompleted}, statuses(res.Plan))
	assert.False(t, res.Plan.StepByID("a1").Result.EndedPlan)
	assert.Equal(t, "done after all", res.Plan.StepByID("a1").Result.Output)
	assert.Equal(t, []string{"s2"}, h.f.stepIDs())
}

func TestFinishPlanWhileAReflectionRunsDropsItsDecision(t *testing.T) {
	h := newHarness(t)
	agent := agentStep("a2", 0)
	agent.Config.Agent.Tools = []string{"read_file", tools.FinishPlan}
	h.f.onePlan(llmStep("s1"), agent, llmStep("s3", "s1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		call := activities.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"cart.go"}`}
		if in.Iteration == 2 {
			call = activities.ToolCall{ID: "c2", Name: tools.FinishPlan, Arguments: `{"reason":"` + finishReason + `"}`}
		}
		return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{call}}, nil
	}
	h.f.finishingTools()
	// s1 ends at 1m and its reflection runs until 3m; a2 ends the plan at
	// 2m, in the middle of it. The reflection would append a step.
	h.env.OnActivity(a.Reflect, mock.Anything, mock.Anything).After(2 * stepTime).Return(
		func(_ context.Context, in activities.ReflectInput) (plan.Reflection, error) {
			record(h.f, "Reflect", &h.f.reflectIn, in)
			return plan.Reflection{Decision: plan.DecisionAppend, Reason: "one more",
				Edits: []plan.Edit{{Op: plan.OpAppend, Step: newStep("n1", "s1")}}}, nil
		})
	req := autoReq()
	req.Execution.Parallelism = 2
	req.Execution.Mode = signals.ExecComplete // s1 is reflected on though it did what it planned
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 1, h.f.count("Reflect"), "only s1 is reflected on")
	assert.Nil(t, res.Plan.StepByID("n1"), "a decision that arrives after the end is dropped")
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "a2": plan.StepCompleted, "s3": plan.StepSkipped},
		statuses(res.Plan))
	assert.True(t, res.Plan.StepByID("a2").Result.EndedPlan)
}

func TestEditRefusedOnceAStepEndedThePlan(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(toolStep("t1", tools.FinishPlan, map[string]any{"reason": finishReason}), llmStep("s2"), llmStep("s3", "s2"))
	h.f.finishingTools()
	added := llmStep("s9")
	var edit *outcome[signals.EditPlanResponse]
	// t1 ends the plan at once; s2 runs on for a step's time.
	h.at(stepTime/2, func() {
		edit = update(h, signals.EditPlan, signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpAppend, Step: &added}}, Reason: "one more"})
	})
	req := autoReq()
	req.Execution.Parallelism = 2
	res := h.run(req)

	requireRejected(t, edit, "execution is stopping")
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Nil(t, res.Plan.StepByID("s9"), "no step is added that would never run")
	for _, s := range res.Plan.Steps {
		assert.NotEqual(t, plan.StepPending, s.Status, "step %s left pending in a finished plan", s.ID)
	}
}
