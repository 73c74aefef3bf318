package testsuite

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/starter/cli"
)

// TestCLIShowsAQueuedPlanAndWatchWaitsForItsWorker starts a plan on a task
// queue no worker polls: show says it is queued and that nobody polls;
// watch says so too and keeps watching until a worker starts and the plan
// stops for its selection.
func TestCLIShowsAQueuedPlanAndWatchWaitsForItsWorker(t *testing.T) {
	isolate(t)
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	id := "queued-" + pw.queue

	start := pw.cli(t, "start", "Add a percentage discount to the cart total", "--workspace", pw.workspace, "--id", id)
	require.Equal(t, 0, start.code, start.errOut)
	t.Cleanup(func() { _ = srv.Client.TerminateWorkflow(context.Background(), id, "", "test over") })

	show := pw.cli(t, "show", id)
	require.Equal(t, 0, show.code, show.errOut)
	assert.Contains(t, show.out, "queued, waiting for a worker: no worker is polling task queue "+pw.queue)
	var st struct {
		Source   string              `json:"source"`
		Standing planclient.Standing `json:"standing"`
	}
	pw.cliJSON(t, &st, "show", id)
	assert.Equal(t, planclient.SourceSearchAttributes, st.Source)
	assert.True(t, st.Standing.Queued)

	// watch in the background; a worker starts once watch has said the
	// plan is queued.
	var (
		mu      sync.Mutex
		watched cliResult
	)
	out := &lockedBuffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := testContext(t)
		defer cancel()
		var errOut strings.Builder
		code := cli.Run(ctx, []string{"watch", id, "--address", srv.Address(), "--namespace", srv.Namespace,
			"--task-queue", pw.queue}, strings.NewReader(""), out, &errOut, cli.WithPollInterval(50*time.Millisecond))
		mu.Lock()
		watched = cliResult{code: code, out: out.String(), errOut: errOut.String()}
		mu.Unlock()
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "queued, waiting for a worker") },
		30*time.Second, 20*time.Millisecond)

	pw.poll(t, srv.Client)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("watch did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("watch said:\n%s", watched.out)
	require.Equal(t, 0, watched.code, watched.errOut)
	assert.Contains(t, watched.out, "waits for selection", "watch went on once the worker picked the plan up")
}
