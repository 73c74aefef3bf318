package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// commandTool answers every run_command call with one command run; a call
// whose command is "fail" ran and failed.
func commandTool(in activities.ToolInput) (activities.ToolOutput, error) {
	if in.Call.Arguments == `{"command":"fail"}` {
		return activities.ToolOutput{Error: "exit status 1", CommandsRun: 1}, nil
	}
	return activities.ToolOutput{Success: true, Output: "ok", CommandsRun: 1}, nil
}

// TestCommandsRunCountsEachCommandOnce runs a tool step with one command,
// an agent step whose turn runs two and a failing llm step that its
// fallback rescues with one: four commands ran, and the Result says four.
func TestCommandsRunCountsEachCommandOnce(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.FallbackStepID = "fb"
	h.f.onePlan(
		toolStep("t1", plan.ToolRunCommand, map[string]any{"command": "make"}),
		agentStep("a1", 3),
		primary,
		toolStep("fb", plan.ToolRunCommand, map[string]any{"command": "make fix"}),
	)
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Error: "boom"}, nil
	}
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			return activities.AgentTurnOutput{Content: "testing", ToolCalls: []activities.ToolCall{
				{ID: "c1", Name: plan.ToolRunCommand, Arguments: `{"command":"go test"}`},
				{ID: "c2", Name: plan.ToolRunCommand, Arguments: `{"command":"go vet"}`},
			}}, nil
		}
		return activities.AgentTurnOutput{Content: "tests pass"}, nil
	}
	h.f.runTool = commandTool
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 4, h.f.count("RunTool"), "four commands ran")
	assert.Equal(t, 4, res.Metrics.CommandsRun)
	assert.Equal(t, 4, res.Metrics.StepsCompleted, "the rescued step counts as completed")
}

// TestCommandsRunCountsFailedTries counts the command of a try that failed
// as well as the one of the retry that succeeded.
func TestCommandsRunCountsFailedTries(t *testing.T) {
	h := newHarness(t)
	step := toolStep("t1", plan.ToolRunCommand, map[string]any{"command": "make"})
	step.MaxRetries = 1
	h.f.onePlan(step)
	tries := 0
	h.f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		tries++
		if tries == 1 {
			return activities.ToolOutput{Error: "exit status 2", CommandsRun: 1}, nil
		}
		return commandTool(in)
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 2, res.Metrics.CommandsRun)
	assert.Equal(t, 2, res.Plan.StepByID("t1").Result.Attempts)
}

// TestRescuedStepSaysSo fails a step twice and lets its fallback succeed:
// the step stays completed, and its note, the plan query, the Result and
// the Web UI details say that fallback fb rescued it and from what.
func TestRescuedStepSaysSo(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.MaxRetries = 1
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"))
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		if in.Context.Step.ID == "s1" {
			return plan.StepResult{Error: "boom"}, nil
		}
		return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	s1 := res.Plan.StepByID("s1")
	assert.Equal(t, plan.StepCompleted, s1.Status)
	assert.Equal(t, "fb", s1.RescuedBy())
	assert.Equal(t, "rescued by fallback fb after: boom", s1.Note)
	view := query(h, signals.PlanQuery)
	assert.Equal(t, "rescued by fallback fb after: boom", view.Plan.StepByID("s1").Note)
	assert.Contains(t, currentDetails(h), "| ✓ completed (fallback `fb`) | Step s1 | llm | 2 |")
	assert.Contains(t, currentDetails(h), "| rescued by fallback fb after: boom |")
}

// TestFailedFallbackSaysSo fails a step and its fallback: the step fails
// with the fallback's error and its note keeps its own.
func TestFailedFallbackSaysSo(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"))
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Error: "boom " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusFailed, res.Status)
	s1 := res.Plan.StepByID("s1")
	assert.Equal(t, plan.StepFailed, s1.Status)
	assert.Empty(t, s1.RescuedBy())
	assert.Equal(t, "boom fb", s1.Result.Error)
	assert.Equal(t, "fallback fb failed too, after: boom s1", s1.Note)
}

// TestRescuedStepKeepsItsOwnWork: a step that changed a file and ran a
// command before failing keeps them, and its fallback's are on the
// fallback step alone.
func TestRescuedStepKeepsItsOwnWork(t *testing.T) {
	h := newHarness(t)
	primary := toolStep("s1", plan.ToolRunCommand, map[string]any{"command": "fail"})
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, toolStep("fb", plan.ToolRunCommand, map[string]any{"command": "make"}))
	h.f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		out, err := commandTool(in)
		out.FilesChanged = []plan.FileChange{{Path: in.StepID + ".txt", Op: plan.FileCreated, LinesAdded: 1}}
		return out, err
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	s1, fb := res.Plan.StepByID("s1").Result, res.Plan.StepByID("fb").Result
	assert.Equal(t, "ok", s1.Output, "the fallback's output stands for the step")
	assert.Equal(t, 1, s1.CommandsRun)
	assert.Equal(t, []plan.FileChange{{Path: "s1.txt", Op: plan.FileCreated, LinesAdded: 1}}, s1.FilesChanged)
	assert.Equal(t, []plan.FileChange{{Path: "fb.txt", Op: plan.FileCreated, LinesAdded: 1}}, fb.FilesChanged)
	assert.Equal(t, 2, res.Metrics.CommandsRun)
	assert.Equal(t, 2, res.Metrics.FilesCreated)
}
