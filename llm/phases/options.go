package phases

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
)

// Options asks for a plan's options: the task and its clarified goal, how
// many, the revision whose ids they take, and what only the model can
// take into account (feedback, earlier options, the problems of invalid
// ones).
type Options struct {
	// Task carries the goal, clarified.
	Task     plan.Task
	Count    int
	Revision int
	MaxSteps int
	// Template names a template to use; plan.TemplateAuto lets the task
	// type decide; empty always asks the model.
	Template string
	Feedback string
	Previous []plan.Option
	Invalid  []plan.DroppedOption
	// MCPTools are the recorded MCP tools the plan prompt lists.
	MCPTools []PlanTool
}

// PlanTool is a recorded MCP tool as the plan prompt lists it.
type PlanTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Asks is set when a call of it waits for a person's approval.
	Asks bool `json:"asks,omitempty"`
}

// Bounds of the MCP tools the plan prompt lists: every name costs prompt
// tokens on each generation, and a server may offer hundreds.
const (
	MaxPlanMCPTools        = 50
	MaxPlanToolDescription = 200
)

// UnknownTemplate is a template name that does not exist; the error says
// which names do.
type UnknownTemplate struct{ Name string }

// Error names the templates there are.
func (u *UnknownTemplate) Error() string {
	var names []string
	for _, t := range plan.Templates() {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return fmt.Sprintf("there is no plan template %q: use one of %s, %q, or none", u.Name, strings.Join(names, ", "),
		plan.TemplateAuto)
}

// OptionCount clamps a requested option count to
// 1..signals.MaxOptionCount, zero meaning signals.DefaultOptionCount.
func OptionCount(n int) int {
	switch {
	case n <= 0:
		return signals.DefaultOptionCount
	case n > signals.MaxOptionCount:
		return signals.MaxOptionCount
	}
	return n
}

// OptionID is the id of the n-th option of a revision.
func OptionID(revision, n int) string { return fmt.Sprintf("r%d-o%d", revision, n) }

// planID is the plan id of an option: the task id and the option id.
func (o Options) planID(optionID string) string {
	if o.Task.ID == "" {
		return optionID
	}
	return o.Task.ID + "-" + optionID
}

// FromTemplate builds the one option a template gives, with no model
// call. ok is false when no template applies: none asked for, "auto" with
// no matching task type, or feedback and invalid options that only the
// model can take into account. An unknown template name is an
// *UnknownTemplate error.
func (o Options) FromTemplate(now time.Time) (opt plan.Option, name string, ok bool, err error) {
	name = o.Template
	if name == "" || o.Feedback != "" || len(o.Invalid) > 0 {
		return plan.Option{}, "", false, nil
	}
	if name == plan.TemplateAuto {
		if name, ok = plan.DetectTaskType(o.Task.Goal); !ok {
			return plan.Option{}, "", false, nil
		}
	}
	t, found := plan.TemplateByName(name)
	if !found {
		return plan.Option{}, "", false, &UnknownTemplate{Name: name}
	}
	id := OptionID(o.Revision, 1)
	p := plan.FromTemplate(t, o.Task, o.planID(id), now)
	desc := fmt.Sprintf("%s. Built from the %q template without an LLM call; a template gives one option", t.Description,
		t.Name)
	if n := OptionCount(o.Count); n > 1 {
		desc += fmt.Sprintf(" (%d were asked for)", n)
	}
	return plan.Option{
		ID: id, Title: p.Title, Description: desc + ".", Plan: p,
		Pros: []string{"Planned instantly and at no cost: no LLM call", "A proven sequence for " +
			strings.ReplaceAll(t.Name, "_", " ") + " tasks"},
		Cons: []string{"Generic: not tailored to this workspace or goal beyond the template's prompts"},
	}, t.Name, true, nil
}

// FromReply builds the options of the model's reply, at most the count
// asked for, with their ids and plan ids.
func (o Options) FromReply(r reply.Options, now time.Time) []plan.Option {
	opts := r.Options[:min(len(r.Options), OptionCount(o.Count))]
	out := make([]plan.Option, 0, len(opts))
	for i, ro := range opts {
		id := OptionID(o.Revision, i+1)
		out = append(out, ro.PlanOption(id, o.planID(id), o.Task, now))
	}
	return out
}

// Data fills the plan prompt's data: the task and the goal, the
// workspace's files
// (more when the listing was cut), the tools steps may use and the MCP
// tools (PlanTools).
func (o Options) Data(files []string, more bool, tools []llm.ToolSpec) prompts.PlanData {
	d := prompts.PlanData{Task: o.Task, Goal: o.Task.Goal, Count: OptionCount(o.Count), MaxSteps: o.MaxSteps,
		Feedback: o.Feedback, Invalid: o.Invalid, Files: files, MoreFiles: more}
	for _, p := range o.Previous {
		d.Previous = append(d.Previous, p.Title)
	}
	d.Tools = slices.Concat(tools, PlanTools(o.MCPTools))
	return d
}

// PlanTools lists MCP tools for the plan prompt: at most MaxPlanMCPTools,
// descriptions cut, those that wait for approval saying so first (the
// template cuts the end of a long line).
func PlanTools(tools []PlanTool) []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, min(len(tools), MaxPlanMCPTools))
	for _, t := range tools[:min(len(tools), MaxPlanMCPTools)] {
		desc := plan.TruncateBytes(t.Description, MaxPlanToolDescription)
		if t.Asks {
			desc = strings.TrimSpace("(a call waits for a person's approval) " + desc)
		}
		out = append(out, llm.ToolSpec{Name: t.Name, Description: desc})
	}
	return out
}

// Rough token needs of running a step, used for plan estimates.
const (
	estTokensLLMStep   = 2000
	estTokensAgentStep = 12000
	estTokensReflect   = 1500
	estTokensSummary   = 2500
)

// Estimate fills a plan's token and cost estimates: a rough sum per step
// action plus a reflection per step and the summary, costed at model's
// price (the execute phase's) with a quarter of the tokens as output.
func Estimate(p *plan.Plan, prices llm.Pricing, model string) {
	tokens := estTokensSummary
	for _, s := range p.Steps {
		tokens += estTokensReflect
		switch s.Action {
		case plan.ActionLLM:
			tokens += estTokensLLMStep
		case plan.ActionAgent:
			tokens += estTokensAgentStep
		}
	}
	p.Estimates.Tokens = tokens
	p.Estimates.CostUSD = prices.Cost(model, tokens*3/4, tokens/4)
}
