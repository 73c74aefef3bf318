package telemetry

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	contribtally "go.temporal.io/sdk/contrib/tally"
)

// reportInterval is how often tally moves what was recorded into the
// Prometheus registry; a scrape sees a value at most this late.
const reportInterval = time.Second

// durationBuckets are the histogram buckets, in seconds, of every timer:
// the SDK's request latencies (milliseconds) as well as steps and model
// calls (seconds to an hour).
var durationBuckets = []float64{
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600,
}

// sanitizeOptions are the SDK contrib's Prometheus sanitizing, but label
// values keep the characters model names and task queues hold
// (gpt-4o-mini, gpt-4.1): Prometheus accepts any text there, and an
// operator searches for the name as configured.
var sanitizeOptions = func() tally.SanitizeOptions {
	o := contribtally.PrometheusSanitizeOptions
	o.ValueCharacters = tally.ValidCharacters{
		Ranges:     tally.AlphanumericRange,
		Characters: []rune{'_', '-', '.', ':', '/', '@'},
	}
	return o
}()

// Metrics is a Prometheus registry that the Temporal SDK and planmode's
// own metrics report to through one client.MetricsHandler. It also holds
// the Go runtime and process collectors.
type Metrics struct {
	registry *prom.Registry
	handler  client.MetricsHandler
	closer   io.Closer
}

// NewMetrics returns an empty registry and the tally scope that feeds it,
// with Prometheus naming (counters end in _total, timers are histograms in
// seconds). Registration conflicts (one name recorded with two label
// sets) are logged on logger, or dropped when it is nil, instead of
// panicking. It returns an error when a collector cannot be registered.
func NewMetrics(logger *slog.Logger) (*Metrics, error) {
	registry := prom.NewRegistry()
	for _, c := range []prom.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := registry.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:              registry,
		DefaultTimerType:        tallyprom.HistogramTimerType,
		DefaultHistogramBuckets: durationBuckets,
		OnRegisterError: func(err error) {
			if logger != nil {
				logger.Warn("metric not registered", "error", err)
			}
		},
	})
	scope, closer := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sanitizeOptions,
	}, reportInterval)
	return &Metrics{
		registry: registry,
		handler:  contribtally.NewMetricsHandler(contribtally.NewPrometheusNamingScope(scope)),
		closer:   closer,
	}, nil
}

// Handler returns the handler to set as client.Options.MetricsHandler;
// workers built on that client, workflow.GetMetricsHandler and
// activity.GetMetricsHandler report through it.
func (m *Metrics) Handler() client.MetricsHandler { return m.handler }

// HTTPHandler serves the registry in the Prometheus text format.
func (m *Metrics) HTTPHandler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Close reports what was recorded since the last interval and stops the
// reporting loop.
func (m *Metrics) Close() error { return m.closer.Close() }
