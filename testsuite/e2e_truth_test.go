package testsuite

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// startTruthWorker starts a planmode worker like startPlanWorker, with the
// offline model built from opts and the namespace's search attributes
// (PlanGoal included) ensured.
func startTruthWorker(t *testing.T, opts ...offline.ServerOption) *planWorker {
	t.Helper()
	srv := StartDevServer(t)
	ctx, cancel := testContext(t)
	defer cancel()
	require.NoError(t, signals.EnsureSearchAttributes(ctx, srv.Client, srv.Namespace))
	pw := newPlanWorker(t, srv, offline.New(opts...))
	t.Cleanup(pw.llm.Close)
	pw.poll(t, srv.Client)
	return pw
}

// refusingModel answers every call with a 400, as a provider that refuses
// the request does.
var refusingModel = offline.WithBrain(offline.BrainFunc(func(string, openai.ChatCompletionRequest) offline.Reply {
	return offline.Reply{Status: http.StatusBadRequest, Content: "this request is refused"}
}))

// requireListed waits until visibility lists run id under q.
func requireListed(ctx context.Context, t *testing.T, pw *planWorker, q, id string) listed {
	t.Helper()
	var found listed
	require.Eventually(t, func() bool {
		l, ok, err := listedIn(ctx, pw.srv, pw.queue, q, id)
		found = l
		return err == nil && ok
	}, loadedWait, 50*time.Millisecond, "%s lists %s", q, id)
	return found
}

// TestRefusedPlanIsFoundFailed runs a plan whose model refuses every call:
// Temporal records it Failed, ExecutionStatus finds it, the typed client
// reads its Result, and PlanGoal finds it by a word of its goal.
func TestRefusedPlanIsFoundFailed(t *testing.T) {
	t.Parallel()
	pw := startTruthWorker(t, refusingModel)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-failed-" + pw.queue
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Add a percentage discount to the cart total",
		Workspace: pw.workspace, Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)

	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "the Result of a failed plan is readable")
	assert.Equal(t, signals.StatusFailed, res.Status)
	assert.Contains(t, res.Error, "rejected the request")
	assert.NotEmpty(t, res.Summary)

	l := requireListed(ctx, t, pw, `ExecutionStatus = "Failed"`, id)
	assert.Equal(t, string(plan.PhaseFailed), l.phase)
	assert.Zero(t, l.progress)
	requireListed(ctx, t, pw, fmt.Sprintf(`%s = "percentage"`, signals.GoalAttr.GetName()), id)
	_, completed, err := listedIn(ctx, pw.srv, pw.queue, `ExecutionStatus = "Completed"`, id)
	require.NoError(t, err)
	assert.False(t, completed, "a failed plan is not Completed")

	cli := pw.cli(t, "result", id)
	assert.Equal(t, 5, cli.code, "planmode result exits 5 for a failed plan: %s", cli.errOut)
	assert.Contains(t, cli.out, "Status: failed")
}

// TestCancelledPlansAreFoundCanceled cancels one plan through Temporal
// cancellation and lets another cancel itself at its selection timeout:
// both are Canceled, found by ExecutionStatus, with readable Results.
func TestCancelledPlansAreFoundCanceled(t *testing.T) {
	t.Parallel()
	pw := startTruthWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	goal := "Add a percentage discount to the cart total"

	// Each in a folder of its own: the second starts before the first has
	// ended and released its workspace.
	byRequest := "plan-cancel-" + pw.queue
	_, err := pc.StartAndGetOptions(ctx, byRequest, signals.StartRequest{Goal: goal})
	require.NoError(t, err)
	require.NoError(t, pc.Cancel(ctx, byRequest))

	byTimeout := "plan-timeout-" + pw.queue
	_, err = pc.Start(ctx, byTimeout, signals.StartRequest{Goal: goal,
		Selection: signals.SelectionPolicy{Mode: signals.SelectManual, Timeout: plan.Duration(time.Second), OnTimeout: signals.OnTimeoutCancel}})
	require.NoError(t, err)

	for _, id := range []string{byRequest, byTimeout} {
		res, err := pc.Result(ctx, id)
		require.NoError(t, err, "the Result of a cancelled plan is readable")
		assert.Equal(t, signals.StatusCancelled, res.Status, id)
		assert.NotEmpty(t, res.Summary, "the partial summary is written")
		l := requireListed(ctx, t, pw, `ExecutionStatus = "Canceled"`, id)
		assert.Equal(t, string(plan.PhaseCancelled), l.phase, id)
		assert.Equal(t, string(signals.AwaitingNone), l.awaiting, id)
	}
	res, err := pc.Result(ctx, byTimeout)
	require.NoError(t, err)
	assert.Contains(t, res.Error, "no option selected within 1s")
}
