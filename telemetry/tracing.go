package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// OTLP protocols of [TracingOptions].Protocol.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http"
)

// otlpHTTPPath is where OTLP over HTTP takes traces.
const otlpHTTPPath = "/v1/traces"

// tracerName names the tracer the interceptor's spans come from.
const tracerName = "github.com/planmode/planmode"

// TracingOptions configures [StartTracing]. The zero value traces nothing.
type TracingOptions struct {
	// Endpoint is the OTLP collector's URL, e.g. http://127.0.0.1:4317;
	// http:// sends in the clear, https:// over TLS. Over HTTP a URL
	// without a path posts to /v1/traces. Headers and other
	// exporter settings come from the standard OTEL_EXPORTER_OTLP_*
	// variables. Empty turns tracing off unless Exporter is set.
	Endpoint string
	// Protocol is ProtocolGRPC (the default) or ProtocolHTTP.
	Protocol string
	// ServiceName is the service.name of every span; empty keeps the
	// OpenTelemetry default (OTEL_SERVICE_NAME, else unknown_service).
	ServiceName string
	// Exporter, when set, receives the spans instead of an OTLP exporter:
	// tests pass an in-memory one.
	Exporter sdktrace.SpanExporter
}

// noShutdown is the shutdown of tracing that is off.
func noShutdown(context.Context) error { return nil }

// StartTracing returns the SDK's OpenTelemetry tracing interceptor, to
// put in client.Options.Interceptors (workers built on the client use it
// too, as it is a worker interceptor as well), and a shutdown function that flushes the spans still batched and
// stops the exporter; call it after the worker stopped. Spans cover
// starting, signalling, querying and updating workflows, and running
// workflows and activities, linked through Temporal headers. With tracing
// off it returns a nil interceptor and a shutdown that does nothing. It
// returns an error for an endpoint that is not an http(s) URL or an
// unknown protocol.
func StartTracing(ctx context.Context, opts TracingOptions) (interceptor.Interceptor, func(context.Context) error, error) {
	exp := opts.Exporter
	if exp == nil {
		if opts.Endpoint == "" {
			return nil, noShutdown, nil
		}
		var err error
		if exp, err = otlpExporter(ctx, opts.Endpoint, opts.Protocol); err != nil {
			return nil, noShutdown, err
		}
	}
	res := resource.Default()
	if opts.ServiceName != "" {
		merged, err := resource.Merge(res, resource.NewSchemaless(semconv.ServiceName(opts.ServiceName)))
		if err != nil {
			return nil, noShutdown, fmt.Errorf("tracing: resource: %w", err)
		}
		res = merged
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	ic, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: tp.Tracer(tracerName)})
	if err != nil {
		return nil, noShutdown, errors.Join(fmt.Errorf("tracing: %w", err), tp.Shutdown(ctx))
	}
	return ic, tp.Shutdown, nil
}

// otlpExporter returns the OTLP exporter of protocol sending to endpoint.
// The exporters connect lazily, so a collector that is down does not keep
// the worker from starting; spans are dropped until it is up.
func otlpExporter(ctx context.Context, endpoint, protocol string) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: endpoint %q: want a URL such as http://127.0.0.1:4317", endpoint)
	}
	var exp sdktrace.SpanExporter
	switch protocol {
	case ProtocolGRPC, "":
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(endpoint))
	case ProtocolHTTP:
		hopts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
		if u.Path == "" || u.Path == "/" {
			// The exporter would post to the URL as given; collectors
			// take traces on the OTLP path.
			hopts = append(hopts, otlptracehttp.WithURLPath(otlpHTTPPath))
		}
		exp, err = otlptracehttp.New(ctx, hopts...)
	default:
		return nil, fmt.Errorf("tracing: protocol %q: want %s or %s", protocol, ProtocolGRPC, ProtocolHTTP)
	}
	if err != nil {
		return nil, fmt.Errorf("tracing: %s exporter: %w", protocol, err)
	}
	return exp, nil
}
