package activities

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
)

// metricsHandler is the activity's metrics handler, which reports through
// the worker's (the SDK's tally handler on metrics.address), or nil outside
// an activity (plain tests), where nothing is recorded.
func metricsHandler(ctx context.Context) client.MetricsHandler {
	if !activity.IsActivity(ctx) {
		return nil
	}
	return activity.GetMetricsHandler(ctx)
}

// tracerName names the spans planmode's activities add.
const tracerName = "github.com/planmode/planmode/activities"

// startSpan starts a span under the activity's own (which the SDK's
// tracing interceptor starts when tracing is on), from the same tracer
// provider, so LLM calls and commands show as spans with their phase and
// step. With tracing off the provider is a no-op and so is the span.
func startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	tracer := trace.SpanFromContext(ctx).TracerProvider().Tracer(tracerName)
	return tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan records err on span and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
