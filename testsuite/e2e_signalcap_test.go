package testsuite

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// serverSignalLimit is the per-run signal limit of this test's server
// (history.maximumSignalsPerExecution, 10,000 by default), lowered so that
// a run that did not continue as new at signals.MaxSignalsPerRun would
// refuse the second flood below.
const serverSignalLimit = signals.MaxSignalsPerRun + 500

// TestLegitimateSignalLandsAfterAFlood floods a plan that waits for its
// selection with refused select-option signals while no worker polls (so
// its history holds little but the signals), lets a worker process them,
// then floods it again and selects. The first run reached
// signals.MaxSignalsPerRun and continued as new; the continuation
// received the rest, which the first run could not have (the server
// refuses every signal past its limit), and the selection runs the plan.
func TestLegitimateSignalLandsAfterAFlood(t *testing.T) {
	t.Parallel()
	ctx, cancel := testContext(t)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Config{DynamicConfig: map[string]string{
		"history.maximumSignalsPerExecution": strconv.Itoa(serverSignalLimit),
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop() })
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{})
	registerOffline(w, pw.llm, pw.root, t.TempDir(), config.Codec{})
	require.NoError(t, w.Start())
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue))
	id := "flooded-" + pw.queue

	_, err = pc.StartAndGetOptions(ctx, id, signals.StartRequest{Goal: "Add a percentage discount to the cart total",
		Workspace: "workspace", OptionCount: 1})
	require.NoError(t, err)
	w.Stop()

	flood(ctx, t, srv, id, signals.MaxSignalsPerRun+100)
	pw.poll(t, srv.Client)
	require.Eventually(t, func() bool {
		desc, err := srv.Client.DescribeWorkflow(ctx, id, "")
		return err == nil && desc.RawResponse.GetWorkflowExecutionInfo().GetFirstRunId() != desc.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	}, loadedWait, 100*time.Millisecond, "the plan continues as new once it has seen its share of signals")

	flood(ctx, t, srv, id, 600)
	require.NoError(t, signals.SelectOption.Signal(ctx, srv.Client, id, signals.SelectOptionRequest{Rank: 1}))
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, "r1-o1", res.SelectedOptionID, "the legitimate selection landed")

	// The signal count made the first run continue, not its history.
	desc, err := srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	first := desc.RawResponse.GetWorkflowExecutionInfo().GetFirstRunId()
	firstRun, err := srv.Client.DescribeWorkflow(ctx, id, first)
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, firstRun.RawResponse.GetWorkflowExecutionInfo().GetStatus())
	assert.Less(t, firstRun.RawResponse.GetWorkflowExecutionInfo().GetHistoryLength(), int64(10000), "below the run's history limit")
}

// flood sends n select-option signals that name both an option and a rank
// (refused and recorded, changing nothing) to id from a few senders, and
// requires the server to accept every one.
func flood(ctx context.Context, t *testing.T, srv *devserver.DevServer, id string, n int) {
	t.Helper()
	var refused atomic.Int64
	var firstErr atomic.Value
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			bad := signals.SelectOptionRequest{OptionID: "r1-o1", Rank: 1}
			for range jobs {
				if err := srv.Client.SignalWorkflow(ctx, id, "", signals.SelectOption.Name, bad); err != nil {
					refused.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	require.Zero(t, refused.Load(), "the server refused signals: %v", firstErr.Load())
}
