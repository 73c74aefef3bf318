package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// rollbackEnv is the SDK's test environment with PlanRollback registered
// and its activities faked: the plan ended at closed with snapshot snap-1
// of /srv/ws, and changed lists what changed since.
type rollbackEnv struct {
	env      *sdktest.TestWorkflowEnvironment
	since    time.Time
	restored int
}

func newRollbackEnv(t *testing.T, changed []string, endErr error) *rollbackEnv {
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(PlanRollback, workflow.RegisterOptions{Name: signals.RollbackWorkflowType})
	closed := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	re := &rollbackEnv{env: env}
	env.OnActivity(a.PlanEnd, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.PlanEndInput) (activities.PlanEndOutput, error) {
		require.Equal(t, "plan-7", in.PlanID)
		if endErr != nil {
			return activities.PlanEndOutput{}, endErr
		}
		return activities.PlanEndOutput{Status: "Completed", ClosedAt: closed, SnapshotID: "snap-1", Workspace: "/srv/ws"}, nil
	})
	env.OnActivity(a.WorkspaceChangedSince, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ChangedSinceInput) (activities.ChangedSinceOutput, error) {
		require.Equal(t, "/srv/ws", in.Workspace)
		re.since = in.Since
		return activities.ChangedSinceOutput{Paths: changed}, nil
	})
	env.OnActivity(a.RestoreWorkspace, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.RestoreInput) (activities.RestoreOutput, error) {
		require.Equal(t, "snap-1", in.SnapshotID)
		require.Equal(t, "/srv/ws", in.Workspace)
		re.restored++
		return activities.RestoreOutput{Restored: []string{"cart.go"}, Removed: []string{"discount.go"}}, nil
	})
	return re
}

func TestPlanRollbackRestoresAnUnchangedWorkspace(t *testing.T) {
	re := newRollbackEnv(t, nil, nil)
	re.env.ExecuteWorkflow(signals.RollbackWorkflowType, signals.RollbackPlanRequest{PlanID: "plan-7"})
	require.True(t, re.env.IsWorkflowCompleted())
	require.NoError(t, re.env.GetWorkflowError())
	var res signals.RollbackPlanResult
	require.NoError(t, re.env.GetWorkflowResult(&res))
	assert.Equal(t, signals.RollbackPlanResult{PlanID: "plan-7", PlanStatus: "Completed", SnapshotID: "snap-1",
		Workspace: "/srv/ws", Restored: []string{"cart.go"}, Removed: []string{"discount.go"}}, res)
	assert.Equal(t, time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC), re.since, "changes are counted from the plan's close")
	assert.Equal(t, 1, re.restored)
}

func TestPlanRollbackRefusesOverChangesUnlessForced(t *testing.T) {
	changed := []string{"cart.go", "notes/"}
	re := newRollbackEnv(t, changed, nil)
	re.env.ExecuteWorkflow(signals.RollbackWorkflowType, signals.RollbackPlanRequest{PlanID: "plan-7"})
	require.True(t, re.env.IsWorkflowCompleted())
	var app *temporal.ApplicationError
	require.ErrorAs(t, re.env.GetWorkflowError(), &app)
	assert.Equal(t, signals.ErrorTypeWorkspaceChanged, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Contains(t, app.Message(), "cart.go, notes/", "the refusal names what changed")
	var res signals.RollbackPlanResult
	require.NoError(t, app.Details(&res))
	assert.Equal(t, changed, res.ChangedSince)
	assert.Zero(t, re.restored, "nothing is restored over later changes")

	forced := newRollbackEnv(t, changed, nil)
	forced.env.ExecuteWorkflow(signals.RollbackWorkflowType, signals.RollbackPlanRequest{PlanID: "plan-7", Force: true})
	require.NoError(t, forced.env.GetWorkflowError())
	require.NoError(t, forced.env.GetWorkflowResult(&res))
	assert.True(t, res.Forced)
	assert.Equal(t, changed, res.ChangedSince, "a forced rollback says what it overwrote")
	assert.Equal(t, 1, forced.restored)
}

func TestPlanRollbackFailsForAPlanItCannotRestore(t *testing.T) {
	open := temporal.NewNonRetryableApplicationError("plan plan-7 is still open", activities.ErrorTypePlanOpen, nil)
	re := newRollbackEnv(t, nil, open)
	re.env.ExecuteWorkflow(signals.RollbackWorkflowType, signals.RollbackPlanRequest{PlanID: "plan-7"})
	var app *temporal.ApplicationError
	require.ErrorAs(t, re.env.GetWorkflowError(), &app)
	assert.Equal(t, activities.ErrorTypePlanOpen, app.Type())
	assert.Zero(t, re.restored)

	bad := newRollbackEnv(t, nil, nil)
	bad.env.ExecuteWorkflow(signals.RollbackWorkflowType, signals.RollbackPlanRequest{})
	require.ErrorAs(t, bad.env.GetWorkflowError(), &app)
	assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
}
