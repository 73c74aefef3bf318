package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/telemetry"
)

// ops is what the worker shows operators: the metrics and health endpoint
// on metrics.address (off when empty) and tracing to tracing.otlpEndpoint
// (off when empty).
type ops struct {
	endpoint    *telemetry.Endpoint
	stopTracing func(context.Context) error
	// polling is set while the worker polls its task queue; /readyz
	// answers 200 only then and while Temporal answers.
	polling atomic.Bool
}

// startOps starts the endpoint and tracing and puts the metrics handler
// and the tracing interceptor into opts, so the SDK's metrics and spans
// and planmode's own go through them.
func startOps(ctx context.Context, cfg config.Config, opts *client.Options, logger *slog.Logger) (*ops, error) {
	ep, err := telemetry.StartEndpoint(cfg.Metrics.Address, logger)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.KeyMetricsAddress, err)
	}
	tracing, stop, err := telemetry.StartTracing(ctx, telemetry.TracingOptions{
		Endpoint: cfg.Tracing.OTLPEndpoint, Protocol: cfg.Tracing.OTLPProtocol, ServiceName: cfg.Tracing.ServiceName,
	})
	if err != nil {
		_ = ep.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("%s: %w", config.KeyTracingEndpoint, err)
	}
	if h := ep.MetricsHandler(); h != nil {
		opts.MetricsHandler = h
	}
	if tracing != nil {
		opts.Interceptors = append(opts.Interceptors, tracing)
	}
	return &ops{endpoint: ep, stopTracing: stop}, nil
}

// started marks the worker ready once it polls c.
func (o *ops) started(c client.Client) {
	o.polling.Store(true)
	o.endpoint.SetReady(telemetry.WorkerReady(c, o.polling.Load))
}

// stopping marks the worker not ready before it stops polling.
func (o *ops) stopping() { o.polling.Store(false) }

// close flushes spans and stops the endpoint.
func (o *ops) close(ctx context.Context, logger *slog.Logger) {
	ctx = context.WithoutCancel(ctx)
	if err := o.stopTracing(ctx); err != nil {
		logger.Warn("flush traces", "error", err)
	}
	if err := o.endpoint.Close(ctx); err != nil {
		logger.Warn("stop metrics endpoint", "error", err)
	}
}
