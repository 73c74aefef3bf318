package testsuite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// listed is a run as a visibility query lists it.
type listed struct {
	id       string
	phase    string
	awaiting string
	progress int64
}

// listPlans runs the visibility query q, narrowed to queue, and decodes
// planmode's search attributes of every run it finds. It returns an error
// rather than failing t, so that a polled condition may call it.
func listPlans(ctx context.Context, srv *devserver.DevServer, queue, q string) ([]listed, error) {
	resp, err := srv.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: srv.Namespace,
		Query:     fmt.Sprintf("TaskQueue = '%s' AND %s", queue, q),
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", q, err)
	}
	var out []listed
	for _, e := range resp.GetExecutions() {
		fields := e.GetSearchAttributes().GetIndexedFields()
		l := listed{id: e.GetExecution().GetWorkflowId()}
		err := errors.Join(
			decodeAttr(fields[signals.PhaseAttr.GetName()], &l.phase),
			decodeAttr(fields[signals.AwaitingAttr.GetName()], &l.awaiting),
			decodeAttr(fields[signals.ProgressAttr.GetName()], &l.progress),
		)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", q, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// decodeAttr decodes a search attribute's payload into v; a missing one
// leaves v as it is.
func decodeAttr(p *commonpb.Payload, v any) error {
	if p == nil {
		return nil
	}
	return converter.GetDefaultDataConverter().FromPayload(p, v)
}

// listedIn runs the visibility query q narrowed to queue and reports
// whether it lists run id, and how.
func listedIn(ctx context.Context, srv *devserver.DevServer, queue, q, id string) (listed, bool, error) {
	runs, err := listPlans(ctx, srv, queue, q)
	if err != nil {
		return listed{}, false, err
	}
	l, ok := findPlan(runs, id)
	return l, ok, nil
}

// findPlan returns the run id among runs.
func findPlan(runs []listed, id string) (listed, bool) {
	i := slices.IndexFunc(runs, func(l listed) bool { return l.id == id })
	if i < 0 {
		return listed{}, false
	}
	return runs[i], true
}

// TestVisibilityFollowsASelection finds a plan waiting for its selection
// through the PlanAwaiting search attribute, selects an option, and
// watches it leave that query, move to executing and complete with
// PlanProgress at 100.
func TestVisibilityFollowsASelection(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-vis-" + pw.queue
	_, err := pc.StartAndGetOptions(ctx, id, signals.StartRequest{Goal: "Add a percentage discount to the cart total", Workspace: pw.workspace})
	require.NoError(t, err)

	awaitingSelection := fmt.Sprintf("%s = '%s'", signals.AwaitingAttr.GetName(), signals.AwaitingSelection)
	movedOn := fmt.Sprintf("%s IN ('%s', '%s', '%s', '%s')", signals.PhaseAttr.GetName(),
		plan.PhaseExecuting, plan.PhaseReflecting, plan.PhaseSummarizing, plan.PhaseCompleted)
	finished := fmt.Sprintf("%s = '%s' AND %s = 100 AND %s = '%s'", signals.PhaseAttr.GetName(), plan.PhaseCompleted,
		signals.ProgressAttr.GetName(), signals.AwaitingAttr.GetName(), signals.AwaitingNone)
	for _, q := range []string{awaitingSelection, movedOn, finished} {
		_, err := listPlans(ctx, pw.srv, pw.queue, q)
		require.NoError(t, err, "the server accepts %s", q)
	}

	var found listed
	require.Eventually(t, func() bool {
		l, ok, err := listedIn(ctx, pw.srv, pw.queue, awaitingSelection, id)
		found = l
		return err == nil && ok
	}, loadedWait, 50*time.Millisecond, "the plan is listed as awaiting selection")
	assert.Equal(t, string(plan.PhaseAwaitingSelection), found.phase)
	assert.Equal(t, string(signals.AwaitingSelection), found.awaiting)
	assert.Zero(t, found.progress)

	_, err = pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, ok, err := listedIn(ctx, pw.srv, pw.queue, awaitingSelection, id)
		return err == nil && !ok
	}, loadedWait, 50*time.Millisecond, "a selected plan leaves the awaiting-selection list")
	require.Eventually(t, func() bool {
		_, ok, err := listedIn(ctx, pw.srv, pw.queue, movedOn, id)
		return err == nil && ok
	}, loadedWait, 50*time.Millisecond, "PlanPhase shows the plan executing or done")

	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.Eventually(t, func() bool {
		l, ok, err := listedIn(ctx, pw.srv, pw.queue, finished, id)
		return err == nil && ok && l.progress == 100
	}, loadedWait, 50*time.Millisecond, "the completed plan is listed at 100 percent")
}
