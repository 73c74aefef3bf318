package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/testsuite"
)

// get returns the status and body of url, or 0 when nothing answers.
func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRunServesMetricsAndHealth(t *testing.T) {
	cleanEnv(t)
	srv := testsuite.StartDevServer(t)
	port, err := devserver.FreePort()
	require.NoError(t, err)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	t.Setenv(config.EnvName(config.KeyMetricsAddress), fmt.Sprintf("127.0.0.1:%d", port))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	queue := testsuite.TaskQueue(t)
	root := t.TempDir()
	require.NoError(t, devserver.CopyDemoWorkspace(filepath.Join(root, "shop")))
	go func() {
		done <- run(ctx, []string{"--address", srv.Address(), "--task-queue", queue, "--workspace-root", root}, &out)
	}()

	require.Eventually(t, func() bool { code, _ := get(base + "/readyz"); return code == http.StatusOK },
		20*time.Second, 50*time.Millisecond, "/readyz answers 200 once the worker polls")
	code, _ := get(base + "/healthz")
	require.Equal(t, http.StatusOK, code, "/healthz")

	// A plan run on this worker shows in planmode's own series.
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	wr, err := pc.Start(ctx, "metrics-"+queue, signals.StartRequest{Goal: "Add a percentage discount to the cart total",
		Workspace: "shop", Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
	require.NoError(t, err)
	var res signals.Result
	require.NoError(t, wr.Get(ctx, &res))
	require.Eventually(t, func() bool {
		_, body := get(base + "/metrics")
		return containsSeries(body, "temporal_") && containsSeries(body, metrics.LLMCallDuration) &&
			containsSeries(body, metrics.PlansFinished) && containsSeries(body, metrics.Steps)
	}, 20*time.Second, 100*time.Millisecond, "the SDK's metrics and planmode's are served")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop")
	}
	code, _ = get(base + "/readyz")
	require.NotEqual(t, http.StatusOK, code, "a stopped worker is not ready")
}

// containsSeries reports whether a Prometheus text body has a sample whose
// name starts with prefix.
func containsSeries(body, prefix string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}
