package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/plan"
)

// complete makes one LLM call: it heartbeats while the call runs inside an
// activity, classifies errors, and returns the call's usage with its cost.
// Errors are ApplicationErrors to return as they are: Temporal reads the
// type and retryability of an activity error only at the top level, so
// wrapping them would make every failure retryable.
func (a *Activities) complete(ctx context.Context, req Request) (Response, plan.Usage, error) {
	if a.llm == nil {
		return Response{}, plan.Usage{}, fail(ErrConfig, nil,
			"no LLM is configured: set llm.baseURL, llm.apiKey and llm.model, or use the offline model")
	}
	stop := a.startHeartbeat(ctx, req.Phase)
	resp, err := a.llm.Complete(ctx, req)
	stop()
	if err != nil {
		return Response{}, plan.Usage{}, ClassifyError(err)
	}
	return resp, a.usage(req, resp), nil
}

// usage returns a call's token counts, one call, and its cost.
func (a *Activities) usage(req Request, resp Response) plan.Usage {
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
func (a *Activities) prices() Pricing {
	if a.pricing == nil {
		return DefaultPricing()
	}
	return a.pricing
}

// startHeartbeat heartbeats the phase every interval until the returned
// stop is called or ctx ends. Outside an activity (a plain unit test) it
// does nothing: activity.RecordHeartbeat would panic there.
func (a *Activities) startHeartbeat(ctx context.Context, phase string) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	interval := a.heartbeat
	if interval <= 0 {
		interval = DefaultHeartbeatInterval
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, "waiting for the LLM: "+phase)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
