package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// continueAsNewOf runs PlanMode with req and run settings and returns how
// it continued as new; the run must end that way.
func continueAsNewOf(h *harness, req signals.StartRequest, opts ...runSetting) (*workflow.ContinueAsNewError, signals.StartRequest) {
	h.t.Helper()
	h.registerRun(opts...)
	h.env.ExecuteWorkflow(signals.WorkflowType, req)
	require.True(h.t, h.env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(h.t, errors.As(h.env.GetWorkflowError(), &can), "want continue-as-new, got %v", h.env.GetWorkflowError())
	var next signals.StartRequest
	require.NoError(h.t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	return can, next
}

// A plan pinned to a build whose deployment now targets another one
// continues as new at its first step boundary, well below any history
// limit, and the continuation starts on the new build.
func TestTargetBuildChangeContinuesAtTheNextStepBoundary(t *testing.T) {
	h := newHarness(t)
	h.env.SetTargetWorkerDeploymentVersionChanged(true)
	can, next := continueAsNewOf(h, autoReq())

	assert.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorAutoUpgrade), can.InitialVersioningBehavior,
		"the continuation moves to the deployment's current build")
	require.NotNil(t, next.Checkpoint)
	require.NotNil(t, next.Checkpoint.Plan)
	assert.Equal(t, map[string]plan.StepStatus{"s1": plan.StepCompleted, "s2": plan.StepPending, "s3": plan.StepPending},
		statuses(next.Checkpoint.Plan), "it stopped after the first step")
	assert.Equal(t, []string{"s1"}, h.f.stepIDs())
}

// A continue-as-new for any other reason keeps the run's build.
func TestContinueAsNewWithoutATargetChangeKeepsTheBuild(t *testing.T) {
	h := newHarness(t)
	h.env.SetCurrentHistoryLength(500)
	can, _ := continueAsNewOf(h, autoReq(), withHistoryLimit(100))
	assert.Equal(t, workflow.ContinueAsNewVersioningBehavior(workflow.ContinueAsNewVersioningBehaviorUnspecified), can.InitialVersioningBehavior,
		"an unchanged target leaves the continuation pinned where the run was")
}

// A one-step plan has no step boundary to move at: it ends where it began.
func TestTargetBuildChangeDoesNotStopAPlanWithNothingLeft(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(llmStep("only"))
	h.env.SetTargetWorkerDeploymentVersionChanged(true)
	res := h.run(autoReq())
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
}
