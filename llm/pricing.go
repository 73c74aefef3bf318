package llm

import (
	"strings"

	"github.com/planmode/planmode/plan"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `json:"input" mapstructure:"input" yaml:"input"`
	Output float64 `json:"output" mapstructure:"output" yaml:"output"`
}

// Pricing maps model names to prices. A model is looked up by its exact
// name, then by the longest name that prefixes it, so that "gpt-4o" prices
// "gpt-4o-2024-08-06". A model not in the table costs nothing: usage is
// still counted, only CostUSD stays zero.
type Pricing map[string]Price

// DefaultPricing returns list prices of a few common OpenAI models. They
// change over time: configure llm.prices to keep costs exact.
func DefaultPricing() Pricing {
	return Pricing{
		"gpt-4o":       {Input: 2.50, Output: 10.00},
		"gpt-4o-mini":  {Input: 0.15, Output: 0.60},
		"gpt-4.1":      {Input: 2.00, Output: 8.00},
		"gpt-4.1-mini": {Input: 0.40, Output: 1.60},
		"gpt-4.1-nano": {Input: 0.10, Output: 0.40},
	}
}

// OrDefault returns p, or DefaultPricing when p is nil: an empty table
// that is not nil prices nothing.
func (p Pricing) OrDefault() Pricing {
	if p == nil {
		return DefaultPricing()
	}
	return p
}

// Lookup returns the price of model and whether the table knows it.
func (p Pricing) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for name := range p {
		if name != "" && strings.HasPrefix(model, name) && len(name) > len(best) {
			best, found = name, true
		}
	}
	return p[best], found
}

// Cost returns the USD cost of the tokens on model; zero for an unknown
// model.
func (p Pricing) Cost(model string, promptTokens, completionTokens int) float64 {
	pr, ok := p.Lookup(model)
	if !ok {
		return 0
	}
	return (float64(promptTokens)*pr.Input + float64(completionTokens)*pr.Output) / 1e6
}

// Price fills u's CostUSD for model and returns it.
func (p Pricing) Price(model string, u plan.Usage) plan.Usage {
	u.CostUSD = p.Cost(model, u.PromptTokens, u.CompletionTokens)
	return u
}
