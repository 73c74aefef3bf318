package activities

import (
	"context"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// complete makes one LLM call: it heartbeats while the call runs inside an
// activity, classifies errors, and returns the call's usage with its cost.
// Errors are ApplicationErrors to return as they are: Temporal reads the
// type and retryability of an activity error only at the top level, so
// wrapping them would make every failure retryable.
func (a *Activities) complete(ctx context.Context, req llm.Request) (llm.Response, plan.Usage, error) {
	stop := heartbeat.Start(ctx, a.HeartbeatInterval, "waiting for the LLM: "+req.Phase)
	resp, err := a.model().Complete(ctx, req)
	stop()
	if err != nil {
		return llm.Response{}, plan.Usage{}, llm.ClassifyError(err)
	}
	return resp, a.usage(req, resp), nil
}

// usage returns a call's token counts, one call, and its cost.
func (a *Activities) usage(req llm.Request, resp llm.Response) plan.Usage {
	u := resp.Usage
	u.Calls = 1
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	model := resp.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		model = a.LLMConfig.ModelFor(req.Phase)
	}
	return a.prices().Price(model, u)
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
