package activities

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
)

// TemplateAuto in OptionsInput.Template lets the goal's task type choose
// a template.
const TemplateAuto = plan.TemplateAuto

// optionCount clamps a requested option count to 1..signals.MaxOptionCount,
// zero meaning signals.DefaultOptionCount.
func optionCount(n int) int {
	switch {
	case n <= 0:
		return signals.DefaultOptionCount
	case n > signals.MaxOptionCount:
		return signals.MaxOptionCount
	}
	return n
}

// optionID is the id of the n-th option of a revision.
func optionID(revision, n int) string { return fmt.Sprintf("r%d-o%d", revision, n) }

// planID is the plan id of an option: the task id and the option id.
func planID(task plan.Task, optionID string) string {
	if task.ID == "" {
		return optionID
	}
	return task.ID + "-" + optionID
}

// taskFor returns the task with its goal replaced by the clarified one.
func taskFor(in OptionsInput) plan.Task {
	t := in.Task
	if in.Goal != "" {
		t.Goal = in.Goal
	}
	return t
}

// templateOptions builds the one option a template gives, with no LLM
// call. ok is false when no template applies: none asked for, "auto" with
// no matching task type, or feedback and invalid options that only the LLM
// can take into account. An unknown template name is a non-retryable
// UnknownTemplate error.
func templateOptions(in OptionsInput, now time.Time) (out OptionsOutput, ok bool, err error) {
	name := in.Template
	if name == "" || in.Feedback != "" || len(in.Invalid) > 0 {
		return OptionsOutput{}, false, nil
	}
	task := taskFor(in)
	if name == TemplateAuto {
		if name, ok = plan.DetectTaskType(task.Goal); !ok {
			return OptionsOutput{}, false, nil
		}
	}
	t, found := plan.TemplateByName(name)
	if !found {
		var names []string
		for _, t := range plan.Templates() {
			names = append(names, t.Name)
		}
		sort.Strings(names)
		return OptionsOutput{}, false, fail(ErrorTypeUnknownTemplate, nil, fmt.Sprintf(
			"there is no plan template %q: use one of %s, %q, or none", name, strings.Join(names, ", "), TemplateAuto))
	}
	id := optionID(in.Revision, 1)
	p := plan.FromTemplate(t, task, planID(in.Task, id), now)
	desc := fmt.Sprintf("%s. Built from the %q template without an LLM call; a template gives one option", t.Description,
		t.Name)
	if n := optionCount(in.Count); n > 1 {
		desc += fmt.Sprintf(" (%d were asked for)", n)
	}
	opt := plan.Option{
		ID: id, Title: p.Title, Description: desc + ".", Plan: p,
		Pros: []string{"Planned instantly and at no cost: no LLM call", "A proven sequence for " +
			strings.ReplaceAll(t.Name, "_", " ") + " tasks"},
		Cons: []string{"Generic: not tailored to this workspace or goal beyond the template's prompts"},
	}
	return OptionsOutput{Options: []plan.Option{opt}, FromTemplate: t.Name}, true, nil
}

// listFiles lists the task's workspace for a prompt, resolved under the
// workspace root first: a relative workspace is the root's, not the
// worker's current folder, and one the root refuses lists nothing.
func (a *Activities) listFiles(tc plan.TaskContext) ([]string, bool) {
	if len(tc.CurrentFiles) == 0 && tc.WorkspaceRoot != "" {
		ws, err := a.Workspace.Resolve(tc.WorkspaceRoot, true)
		if err != nil {
			return nil, false
		}
		tc.WorkspaceRoot = ws
	}
	return workspace.ListFiles(tc)
}

// planData fills the plan templates' data.
func (a *Activities) planData(in OptionsInput, count int) prompts.PlanData {
	files, more := a.listFiles(in.Task.Context)
	d := prompts.PlanData{Task: in.Task, Goal: taskFor(in).Goal, Count: count, MaxSteps: in.MaxSteps,
		Feedback: in.Feedback, Invalid: in.Invalid, Files: files, MoreFiles: more}
	for _, p := range in.Previous {
		d.Previous = append(d.Previous, p.Title)
	}
	d.Tools = append(a.specs().Specs(nil), planToolSpecs(in.MCPTools)...)
	return d
}

// Bounds of the MCP tools the plan prompt lists: every name costs prompt
// tokens on each generation, and a server may offer hundreds.
const (
	MaxPlanMCPTools        = 50
	MaxPlanToolDescription = 200
)

// planToolSpecs lists MCP tools for the plan prompt: at most
// MaxPlanMCPTools, descriptions cut, those that wait for approval saying
// so first (the template cuts the end of a long line).
func planToolSpecs(tools []PlanTool) []llm.ToolSpec {
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

// estimate fills a plan's token and cost estimates: a rough sum per step
// action plus a reflection per step and the summary, costed at the
// execute model's price with a quarter of the tokens as output.
func (a *Activities) estimate(p *plan.Plan) {
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
	p.Estimates.CostUSD = a.prices().Cost(a.LLMConfig.ModelFor(PhaseExecute), tokens*3/4, tokens/4)
}
