package activities

import (
	"context"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

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
