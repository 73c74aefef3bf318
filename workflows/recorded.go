package workflows

import (
	"encoding/json"
	"slices"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// recorded is what a plan recorded of its worker's tools (the MCP
// catalogue, the schemas of the worker's own tools, its approval policy)
// with the request's rules: what the run offers the model and what it
// checks calls and edited arguments against. It only reads.
type recorded struct {
	tools *signals.RecordedTools
	rules plan.ApprovalRules
}

// policy is the approval policy calls are decided by: the worker's
// recorded rules, tightened by the request's.
func (k recorded) policy() plan.ApprovalPolicy {
	return plan.Tighten(k.tools.Approval.Rules, k.rules)
}

// names are the tools tool steps, agent steps and edits may name: the
// built-in ones and the recorded MCP tools.
func (k recorded) names() []string {
	return append(plan.BuiltinTools(), k.tools.Names()...)
}

// mcpSpecs returns the specs of the recorded MCP tools an agent step
// whose config names tools may call: those it names, or all of them when
// it names none (as it then gets every built-in tool).
func (k recorded) mcpSpecs(names []string) []activities.ToolSpec {
	var out []activities.ToolSpec
	for _, t := range k.tools.MCPList() {
		if len(names) == 0 || slices.Contains(names, t.Name) {
			out = append(out, activities.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	return out
}

// schema returns the input schema the plan recorded for a tool:
// an MCP tool's, or one of the worker's own; nil when it recorded none.
func (k recorded) schema(name string) json.RawMessage {
	if t, ok := k.tools.Tool(name); ok {
		return t.Parameters
	}
	if k.tools != nil {
		return k.tools.Schemas[name]
	}
	return nil
}

// readOnly reports whether the plan recorded tool name as read-only.
func (k recorded) readOnly(name string) bool {
	if slices.Contains(plan.ReadOnlyTools(), name) {
		return true
	}
	t, ok := k.tools.Tool(name)
	return ok && t.ReadOnly
}

// planTools lists the recorded MCP tools for the plan prompt: those the
// policy does not deny outright, marked when a call asks for approval, at
// most activities.MaxPlanMCPTools with descriptions cut.
func (k recorded) planTools() []activities.PlanTool {
	var out []activities.PlanTool
	if k.tools == nil {
		return nil // nothing recorded yet
	}
	policy := k.policy()
	for _, t := range k.tools.MCPList() {
		if len(out) == activities.MaxPlanMCPTools {
			break
		}
		action, _ := policy.Decide(plan.ToolCall{Tool: t.Name, ReadOnly: t.ReadOnly})
		if action == plan.ApprovalDeny {
			continue
		}
		out = append(out, activities.PlanTool{Name: t.Name, Asks: action == plan.ApprovalAsk,
			Description: plan.TruncateBytes(t.Description, activities.MaxPlanToolDescription)})
	}
	return out
}

// inspectMCP names the recorded read-only MCP tools planning and
// reflection may call while they inspect: those the policy allows
// without asking whatever the arguments, since nobody can be asked
// there.
func (k recorded) inspectMCP() activities.MCPInspect {
	var out activities.MCPInspect
	if k.tools == nil {
		return out
	}
	policy := k.policy()
	for _, t := range k.tools.MCPList() {
		if t.ReadOnly && allowedAlways(policy, t.Name) && len(out.Names) < plan.MaxStepTools {
			out.Names = append(out.Names, t.Name)
		}
	}
	if len(out.Names) > 0 {
		out.Digest = k.tools.MCPDigest
	}
	return out
}

// allowedAlways reports whether policy allows every call of the
// read-only tool name: it allows a call without arguments, and no rule
// for the tool that looks at arguments is stricter.
func allowedAlways(policy plan.ApprovalPolicy, name string) bool {
	if action, _ := policy.Decide(plan.ToolCall{Tool: name, ReadOnly: true}); action != plan.ApprovalAllow {
		return false
	}
	for _, rule := range append(slices.Clone(policy.Worker), policy.Plan...) {
		if len(rule.Args) > 0 && rule.Action != plan.ApprovalAllow && plan.MatchGlob(rule.Match, name) {
			return false
		}
	}
	return true
}
