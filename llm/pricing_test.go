package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
)

func TestPricingLookupAndCost(t *testing.T) {
	p := Pricing{"gpt-4o": {Input: 2.5, Output: 10}, "gpt-4o-mini": {Input: 0.15, Output: 0.6}}
	tests := []struct {
		model string
		known bool
		cost  float64
	}{
		{"gpt-4o", true, 2.5 + 10},
		{"gpt-4o-2024-08-06", true, 2.5 + 10},
		{"gpt-4o-mini-2024-07-18", true, 0.15 + 0.6}, // the longest prefix wins
		{"planmode-offline", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			_, known := p.Lookup(tt.model)
			assert.Equal(t, tt.known, known)
			assert.InDelta(t, tt.cost, p.Cost(tt.model, 1_000_000, 1_000_000), 1e-9)
		})
	}
	u := p.Price("gpt-4o", plan.Usage{PromptTokens: 1000, CompletionTokens: 500})
	assert.InDelta(t, 0.0025+0.005, u.CostUSD, 1e-12)
}
