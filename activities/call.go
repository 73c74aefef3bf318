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
	if a.llm == nil {
		return llm.Response{}, plan.Usage{}, llm.Fail(llm.ErrConfig, nil,
			"no LLM is configured: set llm.baseURL, llm.apiKey and llm.model, or use the offline model")
	}
	stop := heartbeat.Start(ctx, a.heartbeat, "waiting for the LLM: "+req.Phase)
	resp, err := a.llm.Complete(ctx, req)
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
		model = a.llmConfig.ModelFor(req.Phase)
	}
	return a.prices().Price(model, u)
}

// prices returns the price table, DefaultPricing when none was set.
func (a *Activities) prices() llm.Pricing {
	if a.pricing == nil {
		return llm.DefaultPricing()
	}
	return a.pricing
}
