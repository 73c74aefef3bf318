package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/interceptor"
	sdktest "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func greet(ctx context.Context, name string) (string, error) { return "hello " + name, nil }

func greetWorkflow(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var out string
	err := workflow.ExecuteActivity(ctx, greet, name).Get(ctx, &out)
	return out, err
}

// runTraced runs greetWorkflow in the SDK's test environment with ic as
// the worker interceptor.
func runTraced(t *testing.T, ic interceptor.Interceptor) {
	t.Helper()
	var s sdktest.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{ic}})
	env.RegisterWorkflow(greetWorkflow)
	env.RegisterActivity(greet)
	env.ExecuteWorkflow(greetWorkflow, "plan")
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
}

// keptSpans is an in-memory exporter whose spans outlive the provider's
// shutdown, which would otherwise clear them.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

func TestTracingOffByDefault(t *testing.T) {
	ic, shutdown, err := StartTracing(context.Background(), TracingOptions{})
	require.NoError(t, err)
	assert.Nil(t, ic)
	assert.NoError(t, shutdown(context.Background()))
}

func TestTracingSpansWorkflowsAndActivities(t *testing.T) {
	exp := keptSpans{tracetest.NewInMemoryExporter()}
	ic, shutdown, err := StartTracing(context.Background(), TracingOptions{Exporter: exp, ServiceName: "planmode-test"})
	require.NoError(t, err)
	runTraced(t, ic)
	require.NoError(t, shutdown(context.Background()), "shutdown flushes the batch")

	var names []string
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
		assert.Contains(t, s.Resource.Attributes(), serviceName("planmode-test"))
	}
	for _, want := range []string{"RunWorkflow:greetWorkflow", "StartActivity:greet", "RunActivity:greet"} {
		assert.True(t, slices.Contains(names, want), "no span %s in %v", want, names)
	}
}

func TestTracingExportsOverOTLPHTTP(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
	}))
	defer collector.Close()

	ic, shutdown, err := StartTracing(context.Background(), TracingOptions{Endpoint: collector.URL, Protocol: ProtocolHTTP})
	require.NoError(t, err)
	runTraced(t, ic)
	require.NoError(t, shutdown(context.Background()))

	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, paths, "POST /v1/traces application/x-protobuf", "a URL without a path posts to the OTLP path")
}

func TestTracingGRPCExporterStartsWithoutACollector(t *testing.T) {
	ic, shutdown, err := StartTracing(context.Background(), TracingOptions{Endpoint: "http://" + freeAddr(t)})
	require.NoError(t, err, "the exporter connects lazily: a collector that is down does not stop the worker")
	assert.NotNil(t, ic)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = shutdown(ctx) // nothing batched: nothing to lose
}

func TestTracingRefusesBadSettings(t *testing.T) {
	_, _, err := StartTracing(context.Background(), TracingOptions{Endpoint: "collector:4317"})
	require.ErrorContains(t, err, "want a URL")
	_, _, err = StartTracing(context.Background(), TracingOptions{Endpoint: "http://c:4317", Protocol: "udp"})
	require.ErrorContains(t, err, `protocol "udp"`)
}
