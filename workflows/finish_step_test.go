package workflows

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// stepAnswer is what the fakes' finish_step calls give as the answer.
const stepAnswer = "rule 3 rejects an empty email"

// finishTurn is a turn that makes calls and ends the step with answer, as
// AgentTurn returns it: the finish_step call among the calls, read as
// Finish.
func finishTurn(answer string, calls ...activities.ToolCall) activities.AgentTurnOutput {
	args := fmt.Sprintf(`{"answer":%q}`, answer)
	calls = append(calls, activities.ToolCall{ID: "fin", Name: activities.FinishStep, Arguments: args})
	return activities.AgentTurnOutput{Content: "writing it down", ToolCalls: calls, Usage: plan.Usage{TotalTokens: 5},
		Finish: &activities.StepFinish{Answer: answer}}
}

// writeCall is the write_file call the finishing turns make.
var writeCall = activities.ToolCall{ID: "w", Name: plan.ToolWriteFile, Arguments: `{"path":"NOTES.md","content":"x"}`}

// writingStep is an agent step that may read and write.
func writingStep(id string) plan.Step {
	s := agentStep(id, 0)
	s.Config.Agent.Tools = []string{plan.ToolReadFile, plan.ToolWriteFile}
	return s
}

// writesOK makes RunTool write successfully.
func (f *fakes) writesOK() {
	f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Success: true, Output: "wrote NOTES.md",
			FilesChanged: []plan.FileChange{{Path: "NOTES.md", Op: plan.FileCreated, LinesAdded: 1}}}, nil
	}
}

// agentInputs returns the AgentTurn inputs so far.
func agentInputs(f *fakes) []activities.AgentTurnInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]activities.AgentTurnInput(nil), f.agentIn...)
}

func TestFinishStepBesideASucceedingCallEndsTheStep(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(writingStep("a1"), llmStep("s2", "a1"))
	h.f.agentTurn = func(activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return finishTurn(stepAnswer, writeCall), nil
	}
	h.f.writesOK()
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	step := res.Plan.StepByID("a1")
	require.NotNil(t, step.Result)
	assert.Equal(t, plan.StepCompleted, step.Status)
	assert.Equal(t, stepAnswer, step.Result.Output, "the answer is the step's result")
	assert.Equal(t, 1, step.Result.Iterations)
	assert.Equal(t, 1, h.f.count("AgentTurn"), "no turn only to give the account")
	assert.Equal(t, []string{plan.ToolWriteFile}, toolCalls(h.f), "finish_step runs no activity")
	assert.Len(t, step.Result.FilesChanged, 1, "the turn's call counts")
	assert.False(t, step.Result.EndedPlan, "it ends the step, not the plan")
	assert.Equal(t, []string{"s2"}, h.f.stepIDs(), "the next step runs")
}

func TestFinishStepAloneEndsTheStep(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(writingStep("a1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{
				{ID: "r", Name: plan.ToolReadFile, Arguments: `{"path":"signup.go"}`}}}, nil
		}
		return finishTurn(stepAnswer), nil
	}
	h.f.writesOK()
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	step := res.Plan.StepByID("a1")
	assert.Equal(t, stepAnswer, step.Result.Output)
	assert.Equal(t, 2, step.Result.Iterations)
	assert.Equal(t, []string{plan.ToolReadFile}, toolCalls(h.f))
}

func TestFinishStepBesideAFailingCallIsRefused(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(writingStep("a1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			return finishTurn(stepAnswer, writeCall), nil
		}
		return activities.AgentTurnOutput{Content: "could not write NOTES.md: the disk is full"}, nil
	}
	h.f.runTool = func(activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Error: "disk full"}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	step := res.Plan.StepByID("a1")
	assert.Equal(t, "could not write NOTES.md: the disk is full", step.Result.Output, "the next turn's answer, not the refused one")
	assert.Equal(t, 2, h.f.count("AgentTurn"), "a next turn is asked")
	ins := agentInputs(h.f)
	require.Len(t, ins, 2)
	tr := ins[1].Transcript
	require.Len(t, tr, 3, "the turn, the write's result, the finish's refusal")
	assert.Equal(t, "w", tr[1].ToolCallID)
	assert.Contains(t, tr[1].Content, "disk full", "the failure is reported")
	assert.Equal(t, "fin", tr[2].ToolCallID)
	assert.Contains(t, tr[2].Content, "error: the step did not end: write_file failed in this turn")
}

func TestFinishStepBesideAGateRefusalIsRefused(t *testing.T) {
	h := newHarness(t)
	step := writingStep("a1")
	step.Config.Agent.MaxIterations = 2
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			return finishTurn(stepAnswer, writeCall), nil
		}
		return activities.AgentTurnOutput{Content: "the write was denied"}, nil
	}
	req := gatedReq(signals.ApprovalPolicy{}, step)
	req.Approval.Rules = plan.ApprovalRules{{Match: "write_*", Action: plan.ApprovalDeny}}
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "the write was denied", res.Plan.StepByID("a1").Result.Output)
	assert.Empty(t, toolCalls(h.f), "the denied call never ran")
	tr := agentInputs(h.f)[1].Transcript
	require.Len(t, tr, 3)
	assert.Contains(t, tr[1].Content, "write_* -> deny")
	assert.Contains(t, tr[2].Content, "the step did not end: write_file failed in this turn")
}

func TestFinishStepWaitsForItsTurnsApproval(t *testing.T) {
	h := newHarness(t)
	h.f.agentTurn = func(activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return finishTurn(stepAnswer, writeCall), nil
	}
	h.f.writesOK()
	var pending signals.Pending
	var approved *outcome[signals.ApprovalDecision]
	// The turn takes stepTime; the write waits for a person after it.
	h.at(stepTime+stepTime/2, func() {
		pending = query(h, signals.PendingQuery)
		approved = update(h, signals.ApproveToolCall, signals.ApproveToolCallRequest{RequestID: "approval-1", By: "ann"})
	})
	res := h.run(gatedReq(signals.ApprovalPolicy{}, writingStep("a1")))

	require.Len(t, pending.Approvals, 1, "the write waits for a person, the finish with it")
	assert.Equal(t, plan.ToolWriteFile, pending.Approvals[0].Tool)
	requireAccepted(t, approved)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, stepAnswer, res.Plan.StepByID("a1").Result.Output)
	assert.Equal(t, 1, h.f.count("AgentTurn"))
}

func TestFinishStepWithBadArgumentsLosesNothing(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(writingStep("a1"))
	read := activities.ToolCall{ID: "r", Name: plan.ToolReadFile, Arguments: `{"path":"signup.go"}`}
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			out := finishTurn("", read)
			out.Finish = &activities.StepFinish{Error: "answer is 5000 bytes, more than the 4000 finish_step takes: shorten it"}
			return out, nil
		}
		return finishTurn(stepAnswer), nil
	}
	h.f.runTool = func(activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Success: true, Output: "package signup"}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, stepAnswer, res.Plan.StepByID("a1").Result.Output, "the second, good finish ends the step")
	assert.Equal(t, 2, h.f.count("AgentTurn"))
	tr := agentInputs(h.f)[1].Transcript
	require.Len(t, tr, 3)
	assert.Equal(t, "package signup", tr[1].Content, "the read's result reaches the next turn")
	assert.Equal(t, "error: the step did not end: answer is 5000 bytes, more than the 4000 finish_step takes: shorten it",
		tr[2].Content)
}

func TestFinishStepWithoutARecordedAnswerIsRefused(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(writingStep("a1"))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration == 1 {
			out := finishTurn(stepAnswer)
			out.Finish = nil // a worker that did not read it
			return out, nil
		}
		return activities.AgentTurnOutput{Content: "done"}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "done", res.Plan.StepByID("a1").Result.Output)
	tr := agentInputs(h.f)[1].Transcript
	require.Len(t, tr, 2)
	assert.Contains(t, tr[1].Content, "the worker read no answer from finish_step")
}
