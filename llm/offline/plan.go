package offline

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// Option counts: the default and the most the product asks for.
const (
	defaultOptions = 3
	maxOptions     = 5
)

var (
	countPattern    = regexp.MustCompile(`(?i)\bgenerate\s+(\d+)\s+(?:distinct\s+|different\s+|plan\s+)*options?\b`)
	maxStepsPattern = regexp.MustCompile(`(?i)\bat\s+most\s+(\d+)\s+steps\b`)
)

// planRequest is what the plan phase reads from a request.
type planRequest struct {
	goal     string
	count    int
	maxSteps int
	feedback string
	template string
	ws       workspace
}

// readPlanRequest reads the plan prompt: "Goal: …", "Workspace files:",
// "Tools available …:", the feedback paragraph and "Generate N options,
// each with at most M steps".
func readPlanRequest(v view) planRequest {
	r := planRequest{
		goal:     v.field("goal", "request", "task"),
		count:    v.number(defaultOptions, []*regexp.Regexp{countPattern}, "count"),
		maxSteps: v.number(0, []*regexp.Regexp{maxStepsPattern}, "maxSteps"),
		feedback: after(v.user, "with this feedback:", true),
		template: v.field("template"),
	}
	if r.goal == "" {
		r.goal = firstLine(v.prompt)
	}
	r.goal = strings.TrimRight(strings.TrimSpace(r.goal), ".")
	if r.feedback == "" {
		r.feedback = v.field("feedback")
	}
	r.count = min(max(r.count, 1), maxOptions)
	r.ws.files = listAfter(v.user, "Workspace files")
	if len(r.ws.files) == 0 {
		r.ws.files = listedFiles(v)
	}
	if len(r.ws.files) == 0 {
		r.ws.files = v.workspaceFiles()
	}
	if tools := listAfter(v.user, "Tools available"); len(tools) > 0 {
		r.ws.tools = map[string]bool{}
		for _, t := range tools {
			name, _, _ := strings.Cut(t, ":")
			r.ws.tools[strings.TrimSpace(name)] = true
		}
	} else if len(v.tools) > 0 {
		r.ws.tools = map[string]bool{}
		for _, t := range v.tools {
			r.ws.tools[t] = true
		}
	}
	return r
}

// plan answers the plan phase with count options, each a variant of the
// same base steps. When the request offers list_files and no tool has been
// called yet, it first lists the workspace once, as a model looks before
// it plans; the listing stands in for a prompt that lists no files.
func (b *OfflineBrain) plan(v view) Reply {
	if v.hasTool("list_files") && len(v.rounds) == 0 {
		return Reply{ToolCalls: []ToolCall{call("list_files", map[string]any{"recursive": true})}}
	}
	r := readPlanRequest(v)
	base, template := r.ws.baseSteps(r.goal, r.template)
	var out reply.Options
	for _, vr := range orderVariants(variants(), r.feedback)[:r.count] {
		out.Options = append(out.Options, r.option(vr, base, template))
	}
	return JSONReply(out)
}

// option builds one option from a variant.
func (r planRequest) option(vr variant, base []plan.Step, template string) reply.Option {
	steps := capSteps(vr.build(r.ws, r.goal, cloneSteps(base)), r.maxSteps)
	if vr.fallbacks {
		steps = r.ws.withFallbacks(steps, r.goal, r.maxSteps)
	}
	o := reply.Option{
		Title:       vr.name + ": " + plan.Truncate(r.goal, 80),
		Description: vr.summary + " Steps: " + stepTitles(steps) + ".",
		Pros:        vr.pros,
		Cons:        vr.cons,
		Risks:       vr.risks,
		Steps:       replySteps(steps),
	}
	if template != "" {
		o.Description += " Based on the " + strings.ReplaceAll(template, "_", " ") + " template."
	}
	if r.feedback != "" {
		o.Title = vr.name + " (revised): " + plan.Truncate(r.goal, 80)
		o.Description += " Revised for the feedback: “" + plan.Truncate(oneLine(r.feedback), 200) + "”."
	}
	var secs float64
	for _, s := range o.Steps {
		secs += s.EstimatedSeconds
	}
	o.Estimates = reply.Estimates{
		DurationMinutes: math.Max(1, math.Round(secs/60)),
		Complexity:      vr.complexity,
		Confidence:      vr.confidence,
	}
	return o
}

// cloneSteps deep-copies steps so that variants do not share configs.
func cloneSteps(steps []plan.Step) []plan.Step {
	out := make([]plan.Step, len(steps))
	for i, s := range steps {
		out[i] = s.Clone()
	}
	return out
}

// capSteps drops the least important steps until at most max remain
// (max 0: no cap). Checks go first, then analysis, then file operations;
// code generation goes last. Among equals the later step goes first.
func capSteps(steps []plan.Step, max int) []plan.Step {
	rank := map[plan.StepKind]int{
		plan.KindValidation: 0, plan.KindCodeAnalysis: 1, plan.KindFileOperation: 2,
		plan.KindShellCommand: 2, plan.KindTesting: 3, plan.KindCodeGeneration: 4,
	}
	for max > 0 && len(steps) > max {
		drop := 0
		for i := range steps {
			if rank[steps[i].Kind] <= rank[steps[drop].Kind] {
				drop = i
			}
		}
		steps = append(steps[:drop:drop], steps[drop+1:]...)
	}
	return steps
}

// replySteps numbers steps s1..sN and writes every step's dependsOn, as
// a model asked to mark independent work does (see parallel): a parallel
// step joins the group of parallel steps before it, all of them depending
// on what the group follows ([] at the start); any other step depends on
// the step before it, or on every step of the group before it. Fallback
// steps stay out of that order: they run only in their primary's place,
// and take its dependencies. The brain's internal ids (fallbacks, skip
// conditions) become the sN ids; a reference to a step capSteps dropped
// goes with it. The brain's own step configs always encode, so a failure
// panics as JSONReply does.
func replySteps(steps []plan.Step) []reply.Step {
	ids := map[string]string{}
	fallbacks := map[string]bool{}
	for i, s := range steps {
		if s.ID != "" {
			ids[s.ID] = fmt.Sprintf("s%d", i+1)
		}
		if s.FallbackStepID != "" {
			fallbacks[s.FallbackStepID] = true
		}
	}
	out := make([]reply.Step, 0, len(steps))
	var frontier, group, groupBase []string
	deps := map[string][]string{}
	for i, s := range steps {
		id := fmt.Sprintf("s%d", i+1)
		var d []string
		switch {
		case fallbacks[s.ID]:
			out = append(out, replyStep(s, id, nil, ids))
			continue
		case parallel(s) && group != nil:
			d = groupBase
			group = append(group, id)
		case parallel(s):
			d, groupBase, group = frontier, frontier, []string{id}
		default:
			if group != nil {
				frontier = group
			}
			d, group = frontier, nil
		}
		if group == nil {
			frontier = []string{id}
		}
		deps[id] = d
		out = append(out, replyStep(s, id, d, ids))
	}
	for i := range out {
		if f := out[i].FallbackStepID; f != "" {
			fb := fallbackIndex(out, f)
			out[fb].DependsOn = reply.Deps(deps[out[i].ID]...)
		}
	}
	return out
}

// parallel reports whether the brain marked a step as independent of the
// steps around it: a DependsOn that is empty but not nil (see
// independent).
func parallel(s plan.Step) bool { return s.DependsOn != nil && len(s.DependsOn) == 0 }

// independent marks s as free to run beside its parallel neighbours.
func independent(s plan.Step) plan.Step {
	s.DependsOn = []string{}
	return s
}

// fallbackIndex returns the position of step id among out.
func fallbackIndex(out []reply.Step, id string) int {
	for i, s := range out {
		if s.ID == id {
			return i
		}
	}
	panic("offline: fallback " + id + " is not a step")
}

// replyStep writes one step with its id and dependencies, its fallback
// and skip condition moved from internal ids to sN ids.
func replyStep(s plan.Step, id string, deps []string, ids map[string]string) reply.Step {
	cfg, err := reply.ConfigOf(s.Config)
	if err != nil {
		panic("offline: encode step config: " + err.Error())
	}
	r := reply.Step{
		ID: id, Title: s.Title, Description: s.Description, Kind: s.Kind,
		Action: s.Action, Config: cfg, DependsOn: reply.Deps(deps...), MaxRetries: s.MaxRetries,
		Skippable: s.Skippable, EstimatedSeconds: s.Estimated.D().Seconds(),
		FallbackStepID: ids[s.FallbackStepID],
	}
	if s.RetryDelay > 0 {
		r.RetryDelay = s.RetryDelay.String()
	}
	if cond, ok := mapCondition(s.SkipCondition, ids); ok {
		r.SkipCondition = cond
	}
	return r
}

// mapCondition rewrites the internal ids of a skip condition ("@name") to
// step ids; false when it names a step that is not in the plan.
func mapCondition(cond string, ids map[string]string) (string, bool) {
	if cond == "" {
		return "", false
	}
	ok := true
	out := internalRef.ReplaceAllStringFunc(cond, func(ref string) string {
		id, found := ids[ref]
		ok = ok && found
		return id
	})
	return out, ok
}

// internalRef matches the brain's internal step ids.
var internalRef = regexp.MustCompile(`@[a-z0-9-]+`)

// stepTitles joins step titles with arrows.
func stepTitles(steps []plan.Step) string {
	titles := make([]string, len(steps))
	for i, s := range steps {
		titles[i] = s.Title
	}
	return strings.Join(titles, " → ")
}

// oneLine collapses whitespace.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
