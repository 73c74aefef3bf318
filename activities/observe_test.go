package activities

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/workspace"
)

// traced returns a context inside a recorded span, as the SDK's tracing
// interceptor gives an activity, and the recorder.
func traced(t *testing.T) (context.Context, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "RunActivity")
	t.Cleanup(func() { span.End() })
	return ctx, rec
}

// attrs maps a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestLLMCallsAndToolsAreSpans(t *testing.T) {
	ctx, rec := traced(t)
	a, _ := newScripted(text("hello"))
	_, _, err := a.complete(ctx, llm.Request{Phase: "execute", Model: "gpt-4o"})
	require.NoError(t, err)

	ws := t.TempDir()
	a.Tools.Folders.Root = workspace.Root{Dir: filepath.Dir(ws)}
	out, err := a.RunTool(ctx, ToolInput{PlanID: "p1", StepID: "s3", Workspace: ws, Call: ToolCall{ID: "c1", Name: plan.ToolListFiles, Arguments: `{}`}})
	require.NoError(t, err)
	require.True(t, out.Success, out.Error)

	spans := rec.Ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "llm execute", spans[0].Name())
	assert.Equal(t, "execute", attrs(spans[0])["planmode.phase"].AsString())
	assert.Equal(t, "gpt-4o", attrs(spans[0])["planmode.model"].AsString())
	assert.Equal(t, "tool "+plan.ToolListFiles, spans[1].Name())
	assert.Equal(t, "s3", attrs(spans[1])["planmode.step"].AsString())
	assert.Equal(t, "p1", attrs(spans[1])["planmode.plan"].AsString())
}
