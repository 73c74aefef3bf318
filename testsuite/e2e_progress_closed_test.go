package testsuite

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

// TestProgressOfAClosedPlanNeedsNoWorker runs a plan to its end, then
// reads its progress through the client: it equals what the progress
// query answers (a worker replaying the run), and it still answers once
// no worker polls the queue, when the query cannot: a closed plan's
// progress comes from its Result, not from a workflow task.
func TestProgressOfAClosedPlanNeedsNoWorker(t *testing.T) {
	srv, pw, stopWorker := stoppableWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-closed-progress-" + pw.queue
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Add a health check endpoint", Workspace: pw.workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	queried, err := signals.ProgressQuery.Get(ctx, srv.Client, id)
	require.NoError(t, err)
	got, err := pc.Progress(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, queried, got, "the Result tells the progress the query answers")
	assert.Positive(t, got.Totals.Completed)
	assert.Positive(t, got.Elapsed)

	stopWorker()
	queryCannotAnswer(ctx, t, srv, id)
	again, err := pc.Progress(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

// TestProgressOfARunningPlanNeedsNoWorker: a plan waiting for its
// selection tells its progress from its event log, read from the
// history: with its worker stopped, when no query can answer, planmode's
// client answers what the query answered before, only later, and the
// standing says it came from the log.
func TestProgressOfARunningPlanNeedsNoWorker(t *testing.T) {
	srv, pw, stopWorker := stoppableWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "plan-running-progress-" + pw.queue
	_, err := pc.StartAndGetOptions(ctx, id, signals.StartRequest{Goal: "Add a health check endpoint", Workspace: pw.workspace})
	require.NoError(t, err)
	queried, err := signals.ProgressQuery.Get(ctx, srv.Client, id)
	require.NoError(t, err)
	require.Equal(t, signals.AwaitingSelection, queried.Awaiting)

	stopWorker()
	queryCannotAnswer(ctx, t, srv, id)

	got, err := pc.Progress(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, queried.Phase, got.Phase)
	assert.Equal(t, queried.Awaiting, got.Awaiting)
	assert.Equal(t, queried.Usage, got.Usage)
	assert.Positive(t, got.Usage.TotalTokens, "the options' model calls")
	assert.True(t, queried.StartedAt.Equal(got.StartedAt))
	assert.GreaterOrEqual(t, got.Elapsed, queried.Elapsed, "the time since counts")

	s, err := pc.Standing(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, planclient.SourceLog, s.Source)
	require.NotNil(t, s.Progress)
	assert.Equal(t, signals.AwaitingSelection, s.Progress.Awaiting)
}

// stoppableWorker starts a dev server and a worker with the offline
// model for t; stop stops the worker before t ends (at most once).
func stoppableWorker(t *testing.T) (srv *devserver.DevServer, pw *planWorker, stop func()) {
	srv = StartDevServer(t)
	pw = newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{MaxHeartbeatThrottleInterval: planworker.HeartbeatThrottle})
	registerOffline(w, pw.llm, pw.root, t.TempDir(), pw.codec)
	require.NoError(t, w.Start())
	stop = sync.OnceFunc(w.Stop)
	t.Cleanup(stop)
	return srv, pw, stop
}

// queryCannotAnswer checks that plan id's progress query does not answer
// within two seconds: no worker polls its queue.
func queryCannotAnswer(ctx context.Context, t *testing.T, srv *devserver.DevServer, id string) {
	t.Helper()
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := signals.ProgressQuery.Get(qctx, srv.Client, id)
	require.Error(t, err, "no worker polls: the query cannot answer")
}
