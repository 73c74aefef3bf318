package activities

import (
	"context"
	"time"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/plan"
	"go.opentelemetry.io/otel/attribute"
)

// complete makes one LLM call: it heartbeats while the call runs inside an
// activity, classifies errors, and returns the call's usage with its cost.
// Errors are ApplicationErrors to return as they are: Temporal reads the
// type and retryability of an activity error only at the top level, so
// wrapping them would make every failure retryable.
func (a *Activities) complete(ctx context.Context, req llm.Request) (llm.Response, plan.Usage, error) {
	ctx, span := startSpan(ctx, "llm "+req.Phase, attribute.String("planmode.phase", req.Phase),
		attribute.String("planmode.model", a.modelOf(req, llm.Response{})))
	stop := heartbeat.Start(ctx, a.HeartbeatInterval, "waiting for the LLM: "+req.Phase)
	start := time.Now()
	resp, err := a.model().Complete(ctx, req)
	took := time.Since(start)
	stop()
	endSpan(span, err)
	if err != nil {
		metrics.RecordLLMCall(metricsHandler(ctx), metrics.LLMCall{Phase: req.Phase, Model: a.modelOf(req, resp), Duration: took})
		return llm.Response{}, plan.Usage{}, llm.ClassifyError(err)
	}
	u := a.usage(req, resp)
	metrics.RecordLLMCall(metricsHandler(ctx), metrics.LLMCall{Phase: req.Phase, Model: a.modelOf(req, resp), Duration: took,
		InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens), CostUSD: u.CostUSD})
	return resp, u, nil
}

// modelOf names the model that answered req: the reply's, else the one
// asked for, else the phase's configured one.
func (a *Activities) modelOf(req llm.Request, resp llm.Response) string {
	switch {
	case resp.Model != "":
		return resp.Model
	case req.Model != "":
		return req.Model
	}
	return a.LLMConfig.ModelFor(req.Phase)
}

// usage returns a call's token counts, one call, and its cost.
func (a *Activities) usage(req llm.Request, resp llm.Response) plan.Usage {
	u := resp.Usage
	u.Calls = 1
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return a.prices().Price(a.modelOf(req, resp), u)
}

// completeStructured asks for a JSON reply of the given schema, decoded
// into a T and checked with check (see llm.Structured). With a workspace
// in ins the model may first inspect it through read-only tools (see
// inspect); the one repair request offers no tools.
func completeStructured[T any](ctx context.Context, a *Activities, req llm.Request, ins inspection,
	schema *llm.JSONSchema, check func(*T) error) (T, plan.Usage, error) {
	first := func(ctx context.Context, req llm.Request) (llm.Response, []llm.Message, plan.Usage, error) {
		return a.inspect(ctx, req, ins)
	}
	return llm.Structured(ctx, req, schema, first, a.complete, check)
}
