package workflows

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func toolStep(id, name string, params map[string]any) plan.Step {
	return plan.Step{ID: id, Title: "Tool " + name, Action: plan.ActionTool, Status: plan.StepPending,
		Config: plan.StepConfig{Tool: &plan.ToolConfig{Name: name, Params: params}}}
}

func agentStep(id string, maxIterations int) plan.Step {
	return plan.Step{ID: id, Title: "Agent " + id, Action: plan.ActionAgent, Status: plan.StepPending,
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "fix the tests", Tools: []string{"read_file"}, MaxIterations: maxIterations}}}
}

func TestToolStepRunsOneCallWithJSONArguments(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(toolStep("t1", "write_file", map[string]any{"path": "a.go", "content": "package a"}))
	h.f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		return activities.ToolOutput{Success: true, Output: "wrote a.go", CommandsRun: 1,
			FilesChanged: []plan.FileChange{{Path: "a.go", Op: plan.FileCreated, LinesAdded: 1}}}, nil
	}
	req := autoReq()
	req.Workspace = "/srv/repo"
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	h.f.mu.Lock()
	require.Len(t, h.f.toolIn, 1)
	in := h.f.toolIn[0]
	h.f.mu.Unlock()
	assert.Equal(t, "write_file", in.Call.Name)
	assert.JSONEq(t, `{"path":"a.go","content":"package a"}`, in.Call.Arguments)
	assert.Equal(t, "/srv/repo", in.Workspace)
	assert.Equal(t, "t1", in.StepID)
	assert.Equal(t, 1, res.Metrics.FilesCreated)
	assert.Equal(t, 1, res.Metrics.CommandsRun)
	assert.Equal(t, "wrote a.go", res.Plan.Steps[0].Result.Output)
	assert.Equal(t, 1, h.f.count("SnapshotWorkspace"), "a workspace is snapshotted before execution")
}

func TestAgentLoopRunsToolsUntilAnswer(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 0))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		if in.Iteration < 3 {
			return activities.AgentTurnOutput{Content: fmt.Sprintf("turn %d", in.Iteration), Usage: plan.Usage{TotalTokens: 3},
				ToolCalls: []activities.ToolCall{
					{ID: fmt.Sprintf("c%d-1", in.Iteration), Name: "read_file", Arguments: `{"path":"x"}`},
					{ID: fmt.Sprintf("c%d-2", in.Iteration), Name: "grep", Arguments: `{}`},
				}}, nil
		}
		return activities.AgentTurnOutput{Content: "all tests pass", Usage: plan.Usage{TotalTokens: 3}}, nil
	}
	h.f.runTool = func(in activities.ToolInput) (activities.ToolOutput, error) {
		if in.Call.Name == "grep" {
			return activities.ToolOutput{Success: false, Error: "no match"}, nil
		}
		return activities.ToolOutput{Success: true, Output: "contents", FilesChanged: []plan.FileChange{{Path: "x", Op: plan.FileModified}}}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	step := res.Plan.Steps[0]
	require.NotNil(t, step.Result)
	assert.Equal(t, "all tests pass", step.Result.Output)
	assert.Equal(t, 3, step.Result.Iterations)
	assert.False(t, step.Result.IterationLimitReached)
	assert.Equal(t, 9, step.Result.Usage.TotalTokens)
	assert.Len(t, step.Result.FilesChanged, 2)
	assert.Equal(t, 4, h.f.count("RunTool"), "one activity per tool call")

	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.agentIn, 3)
	assert.Equal(t, signals.DefaultMaxIterationsPerStep, h.f.agentIn[0].MaxIterations)
	assert.Empty(t, h.f.agentIn[0].Transcript)
	third := h.f.agentIn[2].Transcript
	require.Len(t, third, 6, "two turns, each with its two tool results")
	assert.Equal(t, roleAssistant, third[0].Role)
	assert.Len(t, third[0].ToolCalls, 2)
	assert.Equal(t, roleTool, third[1].Role)
	assert.Equal(t, "c1-1", third[1].ToolCallID)
	assert.Equal(t, "contents", third[1].Content)
	assert.Contains(t, third[2].Content, "no match", "a failed tool is reported to the model")
}

func TestAgentStopsAtIterationCap(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 3))
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return activities.AgentTurnOutput{Content: "still looking", ToolCalls: []activities.ToolCall{{ID: "c", Name: "read_file", Arguments: "{}"}}}, nil
	}
	res := h.run(autoReq())

	step := res.Plan.Steps[0]
	require.NotNil(t, step.Result)
	assert.True(t, step.Result.IterationLimitReached)
	assert.Equal(t, 3, step.Result.Iterations)
	assert.Contains(t, step.Result.Output, "Iteration limit reached (3/3)")
	assert.Equal(t, plan.StepCompleted, step.Status, "the reflection decides what follows")
	assert.Equal(t, 3, h.f.count("AgentTurn"))
	assert.Equal(t, 3, h.f.count("RunTool"))
	assert.Equal(t, 1, res.Metrics.Warnings)
}

func TestAgentUsesRequestDefaultCap(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 0))
	h.f.agentTurn = func(activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		return activities.AgentTurnOutput{ToolCalls: []activities.ToolCall{{Name: "read_file"}}}, nil
	}
	req := autoReq()
	req.Execution.MaxIterationsPerStep = 2
	res := h.run(req)

	assert.True(t, res.Plan.Steps[0].Result.IterationLimitReached)
	assert.Equal(t, 2, h.f.count("AgentTurn"))
}

func TestStepRetriesWithDelayThenSucceeds(t *testing.T) {
	h := newHarness(t)
	s := llmStep("s1")
	s.MaxRetries = 2
	s.RetryDelay = plan.Duration(5 * time.Minute)
	h.f.onePlan(s)
	tries := 0
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) {
		tries++
		if tries < 3 {
			return plan.StepResult{Error: fmt.Sprintf("flaky %d", tries)}, nil
		}
		return plan.StepResult{Success: true, Output: "ok"}, nil
	}
	var during plan.Step
	h.at(stepTime+time.Minute, func() { during = query(h, signals.PlanQuery).Plan.Steps[0] })
	start := h.env.Now()
	res := h.run(autoReq())

	assert.Equal(t, plan.StepRetrying, during.Status)
	assert.Contains(t, during.Note, "attempt 1 of 3 failed: flaky 1")
	step := res.Plan.Steps[0]
	assert.Equal(t, plan.StepCompleted, step.Status)
	assert.Equal(t, 3, step.Result.Attempts)
	assert.GreaterOrEqual(t, h.env.Now().Sub(start), 3*stepTime+10*time.Minute, "two delays on the workflow clock")
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestFallbackRunsInPlaceOfFailedStep(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.MaxRetries = 1
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"), llmStep("s2", "s1"))
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		if in.Context.Step.ID == "s1" {
			return plan.StepResult{Error: "boom"}, nil
		}
		return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID}, nil
	}
	res := h.run(autoReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []string{"s1", "s1", "fb", "s2"}, h.f.stepIDs())
	byID := statuses(res.Plan)
	assert.Equal(t, plan.StepCompleted, byID["s1"])
	assert.Equal(t, plan.StepCompleted, byID["fb"])
	assert.Equal(t, plan.StepCompleted, byID["s2"])
	s1 := res.Plan.StepByID("s1")
	assert.Equal(t, "fb", s1.Result.FallbackUsed)
	assert.Equal(t, "done fb", s1.Result.Output)
	assert.Equal(t, "rescued by fallback fb after: boom", s1.Note)
}

func TestUnusedFallbackIsSkipped(t *testing.T) {
	h := newHarness(t)
	primary := llmStep("s1")
	primary.FallbackStepID = "fb"
	h.f.onePlan(primary, llmStep("fb"))
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1"}, h.f.stepIDs())
	fb := res.Plan.StepByID("fb")
	assert.Equal(t, plan.StepSkipped, fb.Status)
	assert.Contains(t, fb.Note, "fallback not needed")
}

func TestFailedStepFailsRunAndBlocksDependents(t *testing.T) {
	cases := []struct {
		name string
		fail func(activities.StepInput) (plan.StepResult, error)
		want string
	}{
		{"step result", func(activities.StepInput) (plan.StepResult, error) {
			return plan.StepResult{Error: "compile error"}, nil
		}, "compile error"},
		{"activity error", func(activities.StepInput) (plan.StepResult, error) {
			return plan.StepResult{}, temporal.NewNonRetryableApplicationError("bad request", "BadRequest", errors.New("400"))
		}, "bad request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
				if in.Context.Step.ID == "s2" {
					return tc.fail(in)
				}
				return plan.StepResult{Success: true}, nil
			}
			res := h.run(autoReq())

			assert.Equal(t, signals.StatusFailed, res.Status)
			assert.Contains(t, res.Error, "1 step(s) failed: s2")
			assert.Contains(t, res.Error, tc.want)
			byID := statuses(res.Plan)
			assert.Equal(t, plan.StepFailed, byID["s2"])
			assert.Equal(t, plan.StepCancelled, byID["s3"])
			assert.Contains(t, res.Plan.StepByID("s3").Note, "depends on did not complete")
			assert.Equal(t, "summary: failed", res.Summary)
			assert.Equal(t, 1, res.Metrics.StepsFailed)
			assert.Equal(t, 1, h.f.count("Reflect"), "the failed step is reflected on; s1, which did what it planned, is not")
		})
	}
}

func TestSkipConditionSkipsStep(t *testing.T) {
	h := newHarness(t)
	s2 := llmStep("s2", "s1")
	s2.SkipCondition = `s1.output contains "nothing to do"`
	s3 := llmStep("s3", "s2")
	s3.SkipCondition = `s1.failed`
	h.f.onePlan(llmStep("s1"), s2, s3)
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Success: true, Output: "Nothing to do here"}, nil
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s3"}, h.f.stepIDs())
	skipped := res.Plan.StepByID("s2")
	assert.Equal(t, plan.StepSkipped, skipped.Status)
	assert.Contains(t, skipped.Note, "skip condition holds")
	last := res.Plan.UpdateHistory[len(res.Plan.UpdateHistory)-1]
	assert.Equal(t, plan.UpdateSkip, last.Type)
	assert.Equal(t, plan.ActorSystem, last.Actor)
}

func TestParallelismRunsIndependentStepsTogether(t *testing.T) {
	cases := []struct {
		parallelism int
		wantTime    time.Duration
	}{
		{1, 3 * stepTime},
		{2, 2 * stepTime},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.parallelism), func(t *testing.T) {
			h := newHarness(t)
			h.f.onePlan(llmStep("a"), llmStep("b"), llmStep("c", "a", "b"))
			req := autoReq()
			req.Execution.Parallelism = tc.parallelism
			start := h.env.Now()
			res := h.run(req)

			require.Equal(t, signals.StatusCompleted, res.Status)
			a, b, c := res.Plan.StepByID("a"), res.Plan.StepByID("b"), res.Plan.StepByID("c")
			assert.Equal(t, tc.wantTime, c.EndedAt.Sub(start))
			if tc.parallelism == 2 {
				assert.True(t, a.StartedAt.Equal(*b.StartedAt), "a and b start together")
			} else {
				assert.False(t, b.StartedAt.Before(*a.EndedAt), "b waits for a")
			}
			assert.Equal(t, 1, h.f.count("Reflect"), "a and b did what they planned: only c, the last, is reflected on")
		})
	}
}

func TestCancelMidStepReturnsPartialResult(t *testing.T) {
	h := newHarness(t)
	h.at(stepTime+30*time.Second, func() { h.env.CancelWorkflow() })
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCancelled, res.Status)
	assert.Equal(t, "cancelled", res.Error)
	assert.Equal(t, "summary: cancelled", res.Summary)
	byID := statuses(res.Plan)
	assert.Equal(t, plan.StepCompleted, byID["s1"])
	assert.Equal(t, plan.StepCancelled, byID["s2"])
	assert.Equal(t, plan.StepCancelled, byID["s3"])
	assert.Equal(t, plan.PlanCancelled, res.Plan.Status)
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.summarizeIn, 1)
	assert.True(t, h.f.summarizeIn[0].Partial)
	assert.Equal(t, string(signals.StatusCancelled), h.f.summarizeIn[0].Status)
	assert.Equal(t, plan.PhaseCancelled, query(h, signals.ProgressQuery).Phase)
}

func TestCancelWhileAwaitingSelection(t *testing.T) {
	h := newHarness(t)
	h.at(time.Minute, func() { h.env.CancelWorkflow() })
	res := h.run(manualReq())

	assert.Equal(t, signals.StatusCancelled, res.Status)
	assert.Equal(t, "summary: cancelled", res.Summary)
	assert.Nil(t, res.Plan)
	pending := query(h, signals.PendingQuery)
	assert.Nil(t, pending.Selection, "no selection is awaited any more")
	assert.Equal(t, signals.AwaitingNone, pending.Awaiting)
}
