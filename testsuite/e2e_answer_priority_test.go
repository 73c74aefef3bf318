package testsuite

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// TestAWaitingPlanIsOneKeyHigherOnTheServer: on a real server a plan that
// waits for its selection has its task priority one key above its own,
// its tenant still its fairness key, as Temporal describes it; once the
// selection came it is back at its own.
func TestAWaitingPlanIsOneKeyHigherOnTheServer(t *testing.T) {
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	pw.poll(t, srv.Client)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-answer-priority-" + pw.queue
	req := signals.StartRequest{Goal: "Add a health check endpoint", Workspace: pw.workspace, Tenant: "acme"}
	_, err := pc.StartAndGetOptions(ctx, id, req)
	require.NoError(t, err)
	own := int32(signals.PriorityKey(req.Priority))

	priority := func() (int32, string) {
		d, err := srv.Client.DescribeWorkflow(ctx, id, "")
		require.NoError(t, err)
		p := d.RawResponse.GetWorkflowExecutionInfo().GetPriority()
		return p.GetPriorityKey(), p.GetFairnessKey()
	}
	require.Eventually(t, func() bool { k, f := priority(); return k == own-1 && f == "acme" }, loadedWait, 20*time.Millisecond,
		"raised while it waits for its selection")
	_, err = pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	require.Eventually(t, func() bool { k, f := priority(); return k == own && f == "acme" }, loadedWait, 20*time.Millisecond,
		"its own once it goes on")
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
}
