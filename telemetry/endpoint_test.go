package telemetry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/metrics"
)

// startEndpoint serves an endpoint on a free loopback port for the test.
func startEndpoint(t *testing.T) *Endpoint {
	t.Helper()
	e, err := StartEndpoint("127.0.0.1:0", nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Close(context.Background())) })
	return e
}

// get fetches path from e and returns the status and body.
func get(t *testing.T, e *Endpoint, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + e.Addr() + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// scrape returns the endpoint's /metrics once it holds every one of want;
// tally reports to the registry every second, so it waits for that.
func scrape(t *testing.T, addr string, want ...string) string {
	t.Helper()
	var body string
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond, "metrics never held all of %q", want)
	return body
}

func TestEndpointServesPlanmodeMetrics(t *testing.T) {
	e := startEndpoint(t)
	h := e.MetricsHandler()
	require.NotNil(t, h)
	metrics.PlanStarted(h)
	metrics.PlanFinished(h, "completed")
	metrics.PlanFinished(h, "completed")
	metrics.StepFinished(h, "tool", "completed", 1500*time.Millisecond)
	metrics.RecordLLMCall(h, metrics.LLMCall{Phase: "plan", Model: "gpt-4o-mini", Duration: 2 * time.Second,
		InputTokens: 120, OutputTokens: 30, CostUSD: 0.0125})
	metrics.WebhookDelivered(h, metrics.OutcomeFailed)
	metrics.CommandRan(h, metrics.OutcomeOK)

	body := scrape(t, e.Addr(),
		"planmode_plans_started_total 1",
		`planmode_plans_finished_total{status="completed"} 2`,
		`planmode_steps_total{action="tool",status="completed"} 1`,
		`planmode_step_duration_seconds_bucket{action="tool",status="completed",le="2.5"} 1`,
		`planmode_llm_tokens_total{kind="input",model="gpt-4o-mini",phase="plan"} 120`,
		`planmode_llm_tokens_total{kind="output",model="gpt-4o-mini",phase="plan"} 30`,
		`planmode_llm_cost_microusd_total{model="gpt-4o-mini",phase="plan"} 12500`,
		`planmode_llm_call_duration_seconds_count{model="gpt-4o-mini",phase="plan"} 1`,
		`planmode_webhook_deliveries_total{outcome="failed"} 1`,
		`planmode_commands_run_total{outcome="ok"} 1`,
	)
	assert.Contains(t, body, "go_goroutines", "the Go runtime collector is registered")
	assert.Contains(t, body, "# TYPE planmode_step_duration_seconds histogram")

	code, body := get(t, e, "/healthz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok\n", body)
}

func TestReadyzFollowsTheCheck(t *testing.T) {
	e := startEndpoint(t)
	code, body := get(t, e, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "not ready: starting")

	var healthy atomic.Bool
	healthy.Store(true)
	e.SetReady(func(context.Context) error {
		if healthy.Load() {
			return nil
		}
		return errors.New("temporal not reachable: connection refused")
	})
	code, body = get(t, e, "/readyz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ready\n", body)

	healthy.Store(false)
	code, body = get(t, e, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "temporal not reachable: connection refused")

	e.SetReady(nil)
	code, _ = get(t, e, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code, "a stopping worker is not ready")
	code, _ = get(t, e, "/healthz")
	assert.Equal(t, http.StatusOK, code, "liveness does not follow readiness")
}

func TestWorkerReady(t *testing.T) {
	// Nothing listens on a port just closed: the health check fails fast.
	nowhere := freeAddr(t)
	c, err := client.NewLazyClient(client.Options{HostPort: nowhere})
	require.NoError(t, err)
	defer c.Close()

	var started atomic.Bool
	check := WorkerReady(c, started.Load)
	require.ErrorContains(t, check(context.Background()), "worker not polling")
	started.Store(true)
	require.ErrorContains(t, check(context.Background()), "temporal not reachable")
}

func TestEndpointOff(t *testing.T) {
	e, err := StartEndpoint("", nil)
	require.NoError(t, err)
	assert.Nil(t, e.MetricsHandler(), "the SDK then records nothing")
	assert.Empty(t, e.Addr())
	metrics.PlanStarted(e.MetricsHandler()) // a nil handler is fine
	assert.NoError(t, e.Close(context.Background()))
}

func TestEndpointAddressInUse(t *testing.T) {
	e := startEndpoint(t)
	_, err := StartEndpoint(e.Addr(), nil)
	require.ErrorContains(t, err, "metrics endpoint")
}
