package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/telemetry"
	"github.com/planmode/planmode/testsuite"
)

// TestMain shares one dev server between the tests that need one.
func TestMain(m *testing.M) { testsuite.Main(m) }

// callModel stands in for an LLM activity: it records a call as the real
// activities do, through the activity's metrics handler.
func callModel(ctx context.Context, goal string) (string, error) {
	metrics.RecordLLMCall(activity.GetMetricsHandler(ctx), metrics.LLMCall{
		Phase: "plan", Model: "offline", Duration: 20 * time.Millisecond, InputTokens: 42, OutputTokens: 7})
	return "plan for " + goal, nil
}

// planWorkflow stands in for PlanMode: it records the plan metrics through
// the workflow's replay-safe handler.
func planWorkflow(ctx workflow.Context, goal string) (string, error) {
	h := workflow.GetMetricsHandler(ctx)
	metrics.PlanStarted(h)
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var out string
	if err := workflow.ExecuteActivity(ctx, callModel, goal).Get(ctx, &out); err != nil {
		return "", err
	}
	metrics.StepFinished(h, "llm", "completed", time.Second)
	metrics.PlanFinished(h, "completed")
	return out, nil
}

// keptSpans is an in-memory exporter whose spans outlive the provider's
// shutdown, which would otherwise clear them.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

// TestWorkerMetricsTracesAndReadiness wires a real client and worker as
// the planmode worker does (metrics handler and tracing interceptor in
// the client options), runs a workflow on a dev server, and reads the
// endpoint over loopback: the SDK's temporal_ series and planmode's own
// are in one scrape, spans cover the client, workflow and activity, and
// /readyz follows the worker.
func TestWorkerMetricsTracesAndReadiness(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Temporal dev server; skipped with -short")
	}
	srv := testsuite.StartDevServer(t)
	ctx := context.Background()

	ep, err := telemetry.StartEndpoint("127.0.0.1:0", nil)
	require.NoError(t, err)
	defer ep.Close(ctx)
	spans := keptSpans{tracetest.NewInMemoryExporter()}
	tracing, shutdown, err := telemetry.StartTracing(ctx, telemetry.TracingOptions{Exporter: spans, ServiceName: "planmode-test"})
	require.NoError(t, err)

	c, err := client.Dial(client.Options{
		HostPort: srv.Address(), Namespace: srv.Namespace,
		MetricsHandler: ep.MetricsHandler(),
		Interceptors:   []interceptor.ClientInterceptor{tracing},
	})
	require.NoError(t, err)
	defer c.Close()

	queue := testsuite.TaskQueue(t)
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(planWorkflow)
	w.RegisterActivity(callModel)
	var started atomic.Bool
	ep.SetReady(telemetry.WorkerReady(c, started.Load))
	assert.Equal(t, http.StatusServiceUnavailable, status(t, ep.Addr(), "/readyz"), "not polling yet")
	require.NoError(t, w.Start())
	started.Store(true)
	assert.Equal(t, http.StatusOK, status(t, ep.Addr(), "/readyz"))

	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, planWorkflow, "ship it")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	assert.Equal(t, "plan for ship it", out)

	q := regexp.QuoteMeta(queue)
	scrape(t, ep.Addr(),
		`planmode_plans_started_total\{[^}]*task_queue="`+q+`"[^}]*workflow_type="planWorkflow"\} 1`,
		`planmode_plans_finished_total\{[^}]*status="completed"[^}]*\} 1`,
		`planmode_step_duration_seconds_count\{action="llm"[^}]*\} 1`,
		`planmode_llm_tokens_total\{activity_type="callModel"[^}]*kind="input",model="offline"[^}]*phase="plan"[^}]*\} 42`,
		`temporal_workflow_completed_total\{[^}]*workflow_type="planWorkflow"[^}]*\} 1`,
		`temporal_activity_execution_latency_seconds_bucket\{[^}]*activity_type="callModel"`,
		`temporal_request_total\{`,
	)

	w.Stop()
	started.Store(false)
	assert.Equal(t, http.StatusServiceUnavailable, status(t, ep.Addr(), "/readyz"), "a stopped worker is not ready")

	require.NoError(t, shutdown(ctx))
	var names []string
	for _, s := range spans.GetSpans() {
		names = append(names, s.Name)
	}
	for _, want := range []string{"StartWorkflow:planWorkflow", "RunWorkflow:planWorkflow", "RunActivity:callModel"} {
		assert.True(t, slices.Contains(names, want), "no span %s in %v", want, names)
	}
}

// status returns the HTTP status of GET path on addr.
func status(t *testing.T, addr, path string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// scrape waits until the endpoint's /metrics has a match of every one of
// the regular expressions want.
func scrape(t *testing.T, addr string, want ...string) {
	t.Helper()
	var missing []string
	var body []byte
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		missing = missing[:0]
		for _, w := range want {
			if !regexp.MustCompile(w).Match(body) {
				missing = append(missing, w)
			}
		}
		return len(missing) == 0
	}, 15*time.Second, 100*time.Millisecond, "metrics lack %q; planmode's are:\n%s", &missing, planmodeLines(&body))
}

// planmodeLines returns a stringer of the planmode_ lines of *body, read
// when printed, for failure messages.
func planmodeLines(body *[]byte) fmt.Stringer {
	return stringer(func() string {
		var lines []string
		for _, l := range strings.Split(string(*body), "\n") {
			if strings.HasPrefix(l, "planmode_") {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	})
}

type stringer func() string

func (s stringer) String() string { return s() }
