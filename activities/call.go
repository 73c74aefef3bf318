package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

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
	stop := a.startHeartbeat(ctx, req.Phase)
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

// heartbeatsPerTimeout is how many heartbeats an activity sends at least
// within its heartbeat timeout, so that one late beat does not make a live
// worker look dead.
const heartbeatsPerTimeout = 3

// heartbeatCap returns the longest an activity running in ctx may go
// between heartbeats: a third of its heartbeat timeout. It is zero (no cap)
// outside an activity or when the activity has no heartbeat timeout.
func heartbeatCap(ctx context.Context) time.Duration {
	if !activity.IsActivity(ctx) {
		return 0
	}
	return activity.GetInfo(ctx).HeartbeatTimeout / heartbeatsPerTimeout
}

// heartbeatInterval returns configured, or limit when limit is set and
// shorter: a plan's short heartbeat timeout (execution.heartbeatTimeout)
// wins over the worker's interval, a long one leaves it alone.
func heartbeatInterval(configured, limit time.Duration) time.Duration {
	if configured <= 0 {
		configured = DefaultHeartbeatInterval
	}
	if limit > 0 && limit < configured {
		return limit
	}
	return configured
}

// startHeartbeat heartbeats the phase every interval (see
// heartbeatInterval) until the returned stop is called or ctx ends.
// Outside an activity (a plain unit test) it does nothing:
// activity.RecordHeartbeat would panic there.
func (a *Activities) startHeartbeat(ctx context.Context, phase string) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	interval := heartbeatInterval(a.heartbeat, heartbeatCap(ctx))
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
