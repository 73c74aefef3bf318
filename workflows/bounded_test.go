package workflows

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestActivityInputsStayBoundedAsThePlanGrows runs a plan longer than any
// list a prompt shows: every reflection gets the first plan.RemainingListed
// steps not done and a count of the others, and the summary a digest of
// plan.DigestSteps steps, not the plan.
func TestActivityInputsStayBoundedAsThePlanGrows(t *testing.T) {
	const n = plan.DigestSteps + 15
	h := newHarness(t)
	h.f.onePlan(llmSteps(n)...)
	req := autoReq()
	req.Execution.MaxSteps = n
	req.Execution.Mode = signals.ExecComplete // a reflection after every step
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	require.Len(t, h.f.reflectIn, n)
	first := h.f.reflectIn[0]
	assert.Len(t, first.Remaining, plan.RemainingListed)
	assert.Equal(t, n-1-plan.RemainingListed, first.RemainingMore, "s1 is done when it is reflected on")
	last := h.f.reflectIn[n-1]
	assert.Empty(t, last.Remaining)
	assert.Zero(t, last.RemainingMore)

	require.Len(t, h.f.summarizeIn, 1)
	in := h.f.summarizeIn[0]
	require.NotNil(t, in.Digest)
	assert.Len(t, in.Digest.Steps, plan.DigestSteps)
	assert.Equal(t, n-plan.DigestSteps, in.Digest.More)
	assert.Equal(t, n, in.Digest.Totals.Completed)
}

// TestDoneStepsKeepAHeadOfTheirOutput checks that the plan keeps a head of
// a done step's output once its reflection has read it whole, while a
// skip condition that reads an output still sees it whole.
func TestDoneStepsKeepAHeadOfTheirOutput(t *testing.T) {
	long := strings.Repeat("x", 3*plan.KeptOutputBytes) + " needle"
	h := newHarness(t)
	steps := llmSteps(3)
	steps[2].SkipCondition = `s1.output contains "needle"`
	h.f.onePlan(steps...)
	h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Success: true, Output: long, OutputRef: "/outputs/" + in.Context.Step.ID}, nil
	}
	req := autoReq()
	req.Execution.Mode = signals.ExecComplete // a reflection after every step
	res := h.run(req)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	require.Len(t, h.f.reflectIn, 2, "s3 was skipped by its condition, so the whole output was read")
	for _, in := range h.f.reflectIn {
		assert.Equal(t, long, in.Result.Output, "a reflection reads the step's output whole")
	}
	assert.Equal(t, plan.StepSkipped, res.Plan.Steps[2].Status)
	for _, s := range res.Plan.Steps[:2] {
		require.NotNil(t, s.Result, s.ID)
		assert.Len(t, s.Result.Output, plan.KeptOutputBytes, s.ID)
		assert.True(t, s.Result.OutputTruncated, s.ID)
		assert.Equal(t, "/outputs/"+s.ID, s.Result.OutputRef, "where the whole output is")
	}
}

// TestContinueAsNewHandsOnABoundedState continues a run started with a
// plan: the continuation gets the plan once (in the checkpoint, not the
// request too) and done steps with the head of their outputs.
func TestContinueAsNewHandsOnABoundedState(t *testing.T) {
	h := newHarness(t)
	h.env.SetCurrentHistoryLength(500)
	h.f.llmStep = func(activities.StepInput) (plan.StepResult, error) {
		return plan.StepResult{Success: true, Output: strings.Repeat("y", 4*plan.KeptOutputBytes)}, nil
	}
	req := autoReq()
	req.Plan = &signals.ExternalPlan{Steps: llmSteps(3)}
	next := h.runToContinue(req, withHistoryLimit(100))

	assert.Nil(t, next.Plan, "the checkpoint holds the plan")
	require.NotNil(t, next.Checkpoint)
	require.NotNil(t, next.Checkpoint.Plan)
	s1 := next.Checkpoint.Plan.Steps[0]
	require.Equal(t, plan.StepCompleted, s1.Status)
	assert.Len(t, s1.Result.Output, plan.KeptOutputBytes)
	assert.True(t, s1.Result.OutputTruncated)
}
