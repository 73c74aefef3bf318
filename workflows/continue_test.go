package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// continued makes h's run a continuation: the only kind of run that
// accepts a checkpoint.
func (h *harness) continued() *harness {
	h.env.SetContinuedExecutionRunID("the-previous-run")
	return h
}

// runToContinue runs PlanMode with run settings and returns the request it
// continued as new with; the run must end that way.
func (h *harness) runToContinue(req signals.StartRequest, opts ...runSetting) signals.StartRequest {
	h.t.Helper()
	h.registerRun(opts...)
	h.env.ExecuteWorkflow(signals.WorkflowType, req)
	require.True(h.t, h.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(h.t, errors.As(h.env.GetWorkflowError(), &can), "want continue-as-new, got %v", h.env.GetWorkflowError())
	assert.Equal(h.t, signals.WorkflowType, can.WorkflowType.Name)
	var next signals.StartRequest
	require.NoError(h.t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	return next
}

func TestContinueAsNewCarriesStateAcrossRuns(t *testing.T) {
	h := newHarness(t)
	h.env.SetCurrentHistoryLength(500)
	h.at(30*time.Second, func() {
		signal(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 1})
	})
	start := h.env.Now()
	req := autoReq()
	req.Workspace = "/srv/repo"
	next := h.runToContinue(req, withHistoryLimit(100))

	require.NotNil(t, next.Checkpoint)
	cp := next.Checkpoint
	assert.Equal(t, 1, cp.Runs)
	assert.Equal(t, plan.PhaseExecuting, cp.Phase)
	assert.Equal(t, "Add JWT authentication", cp.Goal)
	assert.True(t, start.Equal(cp.StartedAt))
	assert.Equal(t, "r1-o1", cp.Options.SelectedID)
	assert.Len(t, cp.Options.Options, 2)
	assert.Equal(t, "snap-1", cp.SnapshotID)
	assert.Equal(t, 5+20+10, cp.Usage.TotalTokens)
	require.Len(t, cp.Rejected, 1)
	assert.Contains(t, cp.Rejected[0].Reason, "not awaiting a selection")
	require.NotNil(t, cp.Plan)
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepPending, "s3": plan.StepPending}, statuses(cp.Plan))
	assert.Equal(t, []string{"s1"}, h.f.stepIDs())
	assert.Equal(t, signals.SelectAuto, next.Selection.Mode, "the policies travel with the request")

	h2 := newHarness(t).continued()
	var rolled *outcome[signals.RollbackResponse]
	h2.at(30*time.Second, func() { rolled = rollbackUpdate(h2) })
	res := h2.run(next)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []string{"s2", "s3"}, h2.f.stepIDs(), "finished steps do not run again")
	assert.Zero(t, h2.f.count("Clarify"))
	assert.Zero(t, h2.f.count("GenerateOptions"))
	assert.Zero(t, h2.f.count("SnapshotWorkspace"))
	assert.Equal(t, 5+20+3*10, res.Tokens)
	assert.Equal(t, "r1-o1", res.SelectedOptionID)
	assert.Equal(t, 3, res.Metrics.StepsCompleted)
	requireAccepted(t, rolled)
	assert.Len(t, query(h2, signals.PendingQuery).Rejected, 1)
	assert.Equal(t, 1, query(h2, signals.OptionsQuery).Revision)
	assert.True(t, start.Equal(query(h2, signals.ProgressQuery).StartedAt))
}

func TestContinueAsNewWhenServerSuggests(t *testing.T) {
	h := newHarness(t)
	h.env.SetContinueAsNewSuggested(true)
	next := h.runToContinue(autoReq())

	require.NotNil(t, next.Checkpoint)
	assert.Equal(t, []string{"s1"}, h.f.stepIDs(), "at least one step runs before continuing")
	assert.Equal(t, plan.StepCompleted, next.Checkpoint.Plan.StepByID("s1").Status)
}

func TestNoContinueAsNewBelowLimit(t *testing.T) {
	h := newHarness(t)
	h.env.SetCurrentHistoryLength(50)
	h.registerRun(withHistoryLimit(100))
	h.env.ExecuteWorkflow(signals.WorkflowType, autoReq())

	require.NoError(t, h.env.GetWorkflowError())
	var res signals.Result
	require.NoError(t, h.env.GetWorkflowResult(&res))
	assert.Equal(t, signals.StatusCompleted, res.Status)
}

func TestInvalidRequestFailsWorkflow(t *testing.T) {
	h := newHarness(t)
	h.register()
	h.env.ExecuteWorkflow(PlanMode, signals.StartRequest{Goal: " ", OptionCount: 9})

	err := h.env.GetWorkflowError()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "goal is required")
	assert.Contains(t, err.Error(), "optionCount must be 1..5")
}

func TestRestoredSkipConfirmationIsSettledFirst(t *testing.T) {
	req := carriedReq()
	req.Checkpoint.SkipConfirmations = []signals.SkipConfirmation{
		{RequestID: "skip-4", StepIDs: []string{"s2"}, Reason: "redundant", Confidence: 0.4},
	}
	req.Checkpoint.SkipSeq = 4
	req.Checkpoint.NotifySeq = 9
	h := newHarness(t).continued()
	var pending signals.Pending
	var answer *outcome[signals.ConfirmSkipResponse]
	h.at(time.Minute, func() {
		pending = query(h, signals.PendingQuery)
		answer = update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-4", Approve: true})
	})
	res := h.run(req)

	assert.Equal(t, signals.AwaitingConfirmation, pending.Awaiting)
	require.Len(t, pending.SkipConfirmations, 1)
	assert.True(t, requireAccepted(t, answer).Approved)
	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s3"}, h.f.stepIDs())
	assert.Equal(t, plan.StepSkipped, res.Plan.StepByID("s2").Status)
	sent := h.f.notified()
	require.NotEmpty(t, sent)
	assert.Equal(t, "default-test-workflow-id/step-started/10", sent[0].IdempotencyKey, "event numbers go on from the checkpoint")
}

func TestCheckpointWithoutPlanIsRefusedNotAPanic(t *testing.T) {
	h := newHarness(t)
	h.register()
	req := autoReq()
	req.Checkpoint = &signals.Checkpoint{CycleState: signals.CycleState{Runs: 1, Phase: plan.PhaseExecuting}}
	h.env.ExecuteWorkflow(PlanMode, req)

	err := h.env.GetWorkflowError()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "panic")
	assert.Contains(t, err.Error(), "checkpoint carries no plan")
	assert.Zero(t, h.f.count("Summarize"), "nothing ran")
}

// carriedReq is a request whose checkpoint holds a plan with its first
// step completed.
func carriedReq() signals.StartRequest {
	p := option("Carried", plan.ComplexityLow, 0.9, llmSteps(3)...).Plan
	p.ID = "carried"
	p.Status = plan.PlanRunning
	p.Steps[0].Status = plan.StepCompleted
	p.Steps[0].Result = &plan.StepResult{Success: true}
	req := autoReq()
	req.Checkpoint = &signals.Checkpoint{CycleState: signals.CycleState{Runs: 1, Phase: plan.PhaseExecuting, Goal: req.Goal},
		ExecutionState: signals.ExecutionState{Plan: &p}}
	return req
}

func TestCheckpointInAFirstRunIsRefused(t *testing.T) {
	h := newHarness(t)
	h.register()
	h.env.ExecuteWorkflow(PlanMode, carriedReq())

	require.True(t, h.env.IsWorkflowCompleted())
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, h.env.GetWorkflowError(), &appErr)
	assert.Equal(t, "InvalidRequest", appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Error(), "checkpoint is only accepted from continue-as-new")
	assert.Empty(t, h.f.stepIDs(), "no step ran")
	assert.Zero(t, h.f.count("Summarize"), "nothing was reported done")
}

func TestCheckpointInAContinuedRunIsAccepted(t *testing.T) {
	h := newHarness(t).continued()
	res := h.run(carriedReq())

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, []string{"s2", "s3"}, h.f.stepIDs())
}

func TestContinueAsNewCarriesNoReceiver(t *testing.T) {
	h := newHarness(t)
	h.env.SetContinueAsNewSuggested(true)
	h.f.notify = func(activities.NotifyInput) (activities.NotifyOutput, error) {
		return activities.NotifyOutput{NoReceiver: true}, nil
	}
	next := h.runToContinue(autoReq())

	require.NotNil(t, next.Checkpoint)
	assert.True(t, next.Checkpoint.NoReceiver, "the checkpoint says no webhook is configured")

	h2 := newHarness(t).continued()
	res := h2.run(next)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Zero(t, h2.f.count("Notify"), "the continued run schedules no delivery to nowhere")
}
