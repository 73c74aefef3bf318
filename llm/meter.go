package llm

import (
	"context"

	"github.com/planmode/planmode/plan"
)

// Meter makes model calls through a Client and accounts for each one:
// the model that answered it (ModelOf) and its token counts, priced
// (Usage). A zero Meter has no client: its calls fail.
type Meter struct {
	// Client is the model called; nil fails every call with a
	// non-retryable ErrorTypeConfig error.
	Client Client
	// Config names the model of each phase, which answered a call whose
	// reply and request name none.
	Config Config
	// Pricing costs every call; nil means DefaultPricing. A model not in
	// the table costs nothing: its usage is still counted.
	Pricing Pricing
}

// Complete makes req through Client and returns the reply with the
// call's usage (Usage). Its errors are classified (ClassifyError), to be
// returned as they are: Temporal reads the type and retryability of an
// activity error only at the top level.
func (m Meter) Complete(ctx context.Context, req Request) (Response, plan.Usage, error) {
	if m.Client == nil {
		return Response{}, plan.Usage{}, Fail(ErrorTypeConfig, nil, "no LLM is configured: set llm.baseURL, "+
			"llm.apiKey and llm.model, or use the offline model")
	}
	resp, err := m.Client.Complete(ctx, req)
	if err != nil {
		return Response{}, plan.Usage{}, ClassifyError(err)
	}
	return resp, m.Usage(req, resp), nil
}

// ModelOf names the model that answered req with resp: the reply's, else
// the one req asked for, else the one Config gives req's phase. With a
// zero resp it names the model req is about to ask.
func (m Meter) ModelOf(req Request, resp Response) string {
	switch {
	case resp.Model != "":
		return resp.Model
	case req.Model != "":
		return req.Model
	}
	return m.Config.ModelFor(req.Phase)
}

// Usage returns the usage of the one call that answered req with resp:
// its token counts (the total summed when the provider gives none), one
// call, and its cost at the price of the model that answered.
func (m Meter) Usage(req Request, resp Response) plan.Usage {
	u := resp.Usage
	u.Calls = 1
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return m.Pricing.OrDefault().Price(m.ModelOf(req, resp), u)
}
