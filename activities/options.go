package activities

import (
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/plan"
)

// Bounds of the MCP tools the plan prompt lists: every name costs prompt
// tokens on each generation, and a server may offer hundreds.
const (
	MaxPlanMCPTools        = phases.MaxPlanMCPTools
	MaxPlanToolDescription = phases.MaxPlanToolDescription
)

// options is what in asks the plan phase.
func options(in OptionsInput) phases.Options {
	return phases.Options{Task: in.Task, Count: in.Count, Revision: in.Revision, MaxSteps: in.MaxSteps,
		Template: in.Template, Feedback: in.Feedback, Previous: in.Previous, Invalid: in.Invalid, MCPTools: in.MCPTools}
}

// estimate fills a plan's token and cost estimates (phases.Estimate) at
// the execute model's price.
func (m *Model) estimate(p *plan.Plan) {
	phases.Estimate(p, m.Pricing.OrDefault(), m.LLMConfig.ModelFor(PhaseExecute))
}
