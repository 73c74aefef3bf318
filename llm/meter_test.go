package llm

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// answer is a Client that answers every call with resp, or fails with err.
type answer struct {
	resp Response
	err  error
}

func (a answer) Complete(context.Context, Request) (Response, error) { return a.resp, a.err }

// The model that answered is the reply's, else the request's, else the
// phase's configured one; the cost is at that model's price.
func TestMeterPricesTheModelThatAnswered(t *testing.T) {
	cfg := Config{Model: "gpt-4o-mini", Phases: map[string]PhaseConfig{PhasePlan: {Model: "gpt-4.1"}}}
	tokens := plan.Usage{PromptTokens: 1_000_000, CompletionTokens: 1_000_000}
	tests := []struct {
		name, reqModel, respModel, phase, want string
		cost                                   float64
	}{
		{"the reply's", "gpt-4.1", "gpt-4o-2024-08-06", PhasePlan, "gpt-4o-2024-08-06", 2.5 + 10},
		{"the request's", "gpt-4.1-nano", "", PhasePlan, "gpt-4.1-nano", 0.1 + 0.4},
		{"the phase's", "", "", PhasePlan, "gpt-4.1", 2 + 8},
		{"the default", "", "", PhaseReflect, "gpt-4o-mini", 0.15 + 0.6},
		{"unknown, free", "", "planmode-offline", PhaseReflect, "planmode-offline", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Meter{Client: answer{resp: Response{Model: tt.respModel, Usage: tokens}}, Config: cfg}
			req := Request{Phase: tt.phase, Model: tt.reqModel}
			resp, u, err := m.Complete(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.ModelOf(req, resp))
			assert.InDelta(t, tt.cost, u.CostUSD, 1e-9)
			assert.Equal(t, 1, u.Calls)
			assert.Equal(t, 2_000_000, u.TotalTokens, "the total is summed when the provider gives none")
		})
	}
}

func TestMeterUsesItsOwnPricesAndKeepsTheProvidersTotal(t *testing.T) {
	m := Meter{Pricing: Pricing{"house": {Input: 3, Output: 15}}}
	u := m.Usage(Request{Model: "house"}, Response{Usage: plan.Usage{PromptTokens: 1000, CompletionTokens: 100,
		TotalTokens: 1200}})
	assert.InDelta(t, 0.003+0.0015, u.CostUSD, 1e-12)
	assert.Equal(t, 1200, u.TotalTokens, "a total the provider gives stands")
	assert.Zero(t, m.Usage(Request{Model: "gpt-4o"}, Response{Usage: u}).CostUSD,
		"a table of its own replaces the default one")
}

func TestMeterClassifiesFailures(t *testing.T) {
	_, u, err := Meter{}.Complete(context.Background(), Request{Phase: PhasePlan})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, string(ErrorTypeConfig), app.Type())
	assert.True(t, app.NonRetryable(), "no client: a retry cannot help")
	assert.Zero(t, u)

	m := Meter{Client: answer{err: &ProviderError{StatusCode: http.StatusUnauthorized, Message: "bad key"}}}
	_, _, err = m.Complete(context.Background(), Request{Phase: PhasePlan})
	require.ErrorAs(t, err, &app)
	assert.Equal(t, string(ErrorTypeAuth), app.Type())

	m.Client = answer{err: errors.New("connection reset")}
	_, _, err = m.Complete(context.Background(), Request{Phase: PhasePlan})
	require.ErrorAs(t, err, &app)
	assert.False(t, app.NonRetryable(), "a network fault may pass")
}

func TestPricingOrDefault(t *testing.T) {
	assert.Equal(t, DefaultPricing(), Pricing(nil).OrDefault())
	assert.Empty(t, Pricing{}.OrDefault(), "an empty table prices nothing")
}
