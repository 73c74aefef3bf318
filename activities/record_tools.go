package activities

import (
	"context"
	"encoding/json"

	"github.com/planmode/planmode/signals"
)

// RecordTools returns what a plan records of its worker when it starts to
// plan: the worker's approval policy with its defaults, and its MCP
// catalogue (ListMCPTools) as the plan offers and gates it.
func (t *Tools) RecordTools(ctx context.Context) (signals.RecordedTools, error) {
	cat, err := t.ListMCPTools(ctx)
	if err != nil {
		return signals.RecordedTools{}, err
	}
	out := signals.RecordedTools{Approval: t.Approval.WithDefaults(signals.ApprovalPolicy{}), MCPDigest: cat.Digest,
		Schemas: map[string]json.RawMessage{}}
	reg := t.registry()
	for _, spec := range reg.Specs(reg.Names()) {
		out.Schemas[spec.Name] = spec.Parameters
	}
	for _, t := range cat.Tools {
		out.MCP = append(out.MCP, signals.RecordedTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters,
			ReadOnly: t.ReadOnly, Idempotent: t.Idempotent})
	}
	for _, p := range cat.Problems {
		out.MCPProblems = append(out.MCPProblems, p.String())
	}
	return out, nil
}
