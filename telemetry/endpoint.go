// Package telemetry is the operations side of a planmode worker: a
// Prometheus endpoint for the Temporal SDK's metrics and planmode's own
// (package metrics names them), liveness and readiness probes, and
// OpenTelemetry tracing of workflows and activities.
//
// The libraries do the work: the SDK's tally contrib and tally's
// Prometheus reporter turn the SDK's metrics handler into Prometheus
// series named as every Temporal SDK names them, and the SDK's
// OpenTelemetry contrib propagates spans through workflow and activity
// headers, which hand-written code would have to keep replay-safe.
//
// # Endpoint
//
// [StartEndpoint] serves, on one address:
//
//	/metrics  the Prometheus text format
//	/healthz  200 while the process runs
//	/readyz   200 when the readiness check passes, else 503 and the reason
//
// The worker sets the check once it has a client and a started worker,
// e.g. [WorkerReady].
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
)

// Timeouts of the endpoint.
const (
	// readyTimeout bounds one readiness check, so that a probe answers
	// before the orchestrator's own timeout.
	readyTimeout = 3 * time.Second
	// healthCheckTimeout bounds WorkerReady's call to Temporal.
	healthCheckTimeout = 2 * time.Second
	readHeaderTimeout  = 5 * time.Second
)

// Checker reports whether the process is ready to work: nil when it is,
// else an error that says why not.
type Checker func(ctx context.Context) error

// errStarting is the readiness answer until a check is set.
var errStarting = errors.New("starting")

// Endpoint serves /metrics, /healthz and /readyz. Its zero value is not
// usable; get one from [StartEndpoint].
type Endpoint struct {
	metrics *Metrics
	srv     *http.Server
	addr    string
	served  chan error

	closeOnce sync.Once
	closeErr  error

	mu    sync.RWMutex
	check Checker
}

// StartEndpoint creates the metrics registry and, when addr is not empty,
// serves it with the probes on addr (host:port; port 0 picks one). With an
// empty addr it returns an Endpoint that serves nothing and whose
// MetricsHandler is nil, so that the SDK records nothing. It returns an
// error when addr cannot be bound.
func StartEndpoint(addr string, logger *slog.Logger) (*Endpoint, error) {
	e := &Endpoint{}
	if addr == "" {
		return e, nil
	}
	m, err := NewMetrics(logger)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = m.Close()
		return nil, fmt.Errorf("metrics endpoint: %w", err)
	}
	e.metrics = m
	e.addr = ln.Addr().String()
	e.srv = &http.Server{Handler: e.mux(), ReadHeaderTimeout: readHeaderTimeout}
	e.served = make(chan error, 1)
	go func() { e.served <- e.srv.Serve(ln) }()
	return e, nil
}

// mux routes the endpoint's paths.
func (e *Endpoint) mux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", e.metrics.HTTPHandler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", e.serveReady)
	return mux
}

// serveReady answers 200 when the check passes and 503 with its reason
// otherwise.
func (e *Endpoint) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := e.Ready(ctx); err != nil {
		http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
}

// Addr returns the address the endpoint listens on, "" when it serves
// nothing.
func (e *Endpoint) Addr() string { return e.addr }

// MetricsHandler returns the handler to set as client.Options.MetricsHandler,
// nil when the endpoint serves nothing (the SDK then records nothing).
func (e *Endpoint) MetricsHandler() client.MetricsHandler {
	if e.metrics == nil {
		return nil
	}
	return e.metrics.Handler()
}

// SetReady sets the check /readyz runs; until it is set, /readyz answers
// 503 "starting". Set nil when the worker stops, so that /readyz fails
// again while it drains.
func (e *Endpoint) SetReady(check Checker) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.check = check
}

// Ready runs the readiness check: nil when ready, else the reason.
func (e *Endpoint) Ready(ctx context.Context) error {
	e.mu.RLock()
	check := e.check
	e.mu.RUnlock()
	if check == nil {
		return errStarting
	}
	return check(ctx)
}

// Close stops serving, waiting for requests in flight until ctx ends, and
// flushes the metrics recorded since the last report. Calling it again
// returns the first call's result.
func (e *Endpoint) Close(ctx context.Context) error {
	if e.srv == nil {
		return nil
	}
	e.closeOnce.Do(func() {
		err := e.srv.Shutdown(ctx)
		if served := <-e.served; !errors.Is(served, http.ErrServerClosed) && err == nil {
			err = served
		}
		e.closeErr = errors.Join(err, e.metrics.Close())
	})
	return e.closeErr
}

// WorkerReady returns the check of a worker: started must report that
// the worker has started its pollers (worker.Start returned nil and Stop
// has not been called), and Temporal must answer c.CheckHealth within two
// seconds.
func WorkerReady(c client.Client, started func() bool) Checker {
	return func(ctx context.Context) error {
		if !started() {
			return errors.New("worker not polling")
		}
		ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
		defer cancel()
		if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
			return fmt.Errorf("temporal not reachable: %w", err)
		}
		return nil
	}
}
