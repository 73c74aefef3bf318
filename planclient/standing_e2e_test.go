package planclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/testsuite"
)

// planningStandIn sets the search attributes a run sets first, answers
// the progress query and stays open until cancelled.
func planningStandIn(ctx workflow.Context, _ signals.StartRequest) (signals.Result, error) {
	if err := signals.ProgressQuery.SetHandler(ctx, func() (signals.Progress, error) {
		return signals.Progress{Phase: plan.PhasePlanning, Percent: 40}, nil
	}); err != nil {
		return signals.Result{}, err
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, signals.PhaseAttr.ValueSet(string(plan.PhasePlanning)),
		signals.ProgressAttr.ValueSet(40), signals.AwaitingAttr.ValueSet(string(signals.AwaitingNone))); err != nil {
		return signals.Result{}, err
	}
	_ = workflow.Await(ctx, func() bool { return false })
	return signals.Result{Status: signals.StatusCancelled}, nil
}

// TestStandingOfAQueuedThenBusyPlan follows one plan through what an
// operator may meet: started with no worker (queued, nobody polling),
// picked up (the query answers), its worker gone (the search attributes
// answer, within the query timeout).
func TestStandingOfAQueuedThenBusyPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Temporal dev server; skipped with -short")
	}
	srv := testsuite.StartDevServer(t)
	queue := testsuite.TaskQueue(t)
	c := planclient.New(srv.Client, planclient.WithTaskQueue(queue), planclient.WithQueryTimeout(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "standing-" + queue
	_, err := c.Start(ctx, id, signals.StartRequest{Goal: "Add JWT authentication"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Client.TerminateWorkflow(context.Background(), id, "", "test over") })

	s, err := c.Standing(ctx, id)
	require.NoError(t, err)
	assert.True(t, s.Queued, "no worker has run it")
	assert.Equal(t, 0, s.Pollers)
	assert.Equal(t, queue, s.TaskQueue)
	assert.Equal(t, planclient.SourceSearchAttributes, s.Source)
	assert.Contains(t, s.Summary(), "queued, waiting for a worker: no worker is polling task queue "+queue)

	w := worker.New(srv.Client, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(planningStandIn, workflow.RegisterOptions{Name: signals.WorkflowType})
	require.NoError(t, w.Start())
	require.Eventually(t, func() bool {
		s, err = c.Standing(ctx, id)
		return err == nil && s.Source == planclient.SourceQuery
	}, 30*time.Second, 50*time.Millisecond)
	assert.False(t, s.Queued)
	require.NotNil(t, s.Progress)
	assert.Equal(t, plan.PhasePlanning, s.Progress.Phase)

	w.Stop()
	start := time.Now()
	s, err = c.Standing(ctx, id)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the query timeout bounds the wait")
	assert.Equal(t, planclient.SourceSearchAttributes, s.Source)
	assert.Equal(t, "Running", s.Status)
	assert.Equal(t, plan.PhasePlanning, s.Phase)
	assert.Equal(t, 40, s.Percent)
	assert.Contains(t, s.Summary(), "from search attributes: the plan did not answer its query within 1s")
}
