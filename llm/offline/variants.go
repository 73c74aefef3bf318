package offline

import (
	"fmt"
	"time"

	"regexp"

	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// variant is one way to shape the base steps into an option, with the
// trade-offs the offline brain claims for it. The claims differ so that
// ranking the options is meaningful.
type variant struct {
	name       string
	summary    string
	build      func(w workspace, goal string, base []plan.Step) []plan.Step
	pros, cons []string
	risks      []reply.Risk
	complexity plan.Complexity
	confidence float64
	// prefer matches feedback that asks for this variant.
	prefer *regexp.Regexp
	// fallbacks gives the steps that run the tests a fixing step as their
	// fallback (see withFallbacks).
	fallbacks bool
}

// variants returns the variants in their default order, best first.
func variants() []variant {
	return []variant{
		{
			name: "Balanced", summary: "Survey the workspace, carry out the goal, then verify it.",
			build:      func(_ workspace, _ string, base []plan.Step) []plan.Step { return base },
			pros:       []string{"Looks at the workspace before changing it", "Verifies the change", "Few steps to supervise"},
			cons:       []string{"No separate review of the result"},
			risks:      []reply.Risk{{Description: "The change may miss part of the goal", Impact: plan.ImpactMedium, Likelihood: plan.LikelihoodLow, Mitigation: "The verification step and reflection catch it"}},
			complexity: plan.ComplexityMedium, confidence: 0.8,
		},
		{
			name: "Minimal", summary: "Only the change itself, in as few steps as possible.",
			build:      minimal,
			pros:       []string{"Fastest to finish", "Spends the fewest tokens"},
			cons:       []string{"Does not study the workspace first", "Leaves the change unverified"},
			risks:      []reply.Risk{{Description: "An unverified change breaks the build or the tests", Impact: plan.ImpactHigh, Likelihood: plan.LikelihoodMedium, Mitigation: "Run the tests by hand afterwards"}},
			complexity: plan.ComplexityLow, confidence: 0.6,
			prefer: regexp.MustCompile(`(?i)\b(fast|faster|quick|quicker|simple|simpler|minimal|small|smaller|short|shorter|cheap)`),
		},
		{
			name: "Thorough", summary: "Study the code first, verify the change, review the result and record what changed.",
			build: thorough,
			pros: []string{"Studies the code before changing it", "Verifies and reviews the change",
				"Leaves a written record", "Least likely to miss part of the goal"},
			cons:       []string{"Slowest option", "Spends the most tokens"},
			risks:      []reply.Risk{{Description: "More steps give more chances for a tool to fail", Impact: plan.ImpactLow, Likelihood: plan.LikelihoodLow, Mitigation: "Tests retry, failing tests get a fixing step, and reflection can skip the optional ones"}},
			complexity: plan.ComplexityHigh, confidence: 0.9, fallbacks: true,
			prefer: regexp.MustCompile(`(?i)\b(thorough|careful|safe|safer|robust|review|tests?|verify|quality)`),
		},
		{
			name: "Incremental", summary: "Carry out the goal in two parts, checking after each.",
			build:      incremental,
			pros:       []string{"Each part is checked before the next", "A failure affects only one part", "Easy to stop half way"},
			cons:       []string{"Checks run more than once", "Splitting the work may not suit every goal"},
			risks:      []reply.Risk{{Description: "The first part leaves the workspace in a half-done state", Impact: plan.ImpactMedium, Likelihood: plan.LikelihoodLow, Mitigation: "Reflection can replan after a failed check"}},
			complexity: plan.ComplexityMedium, confidence: 0.85,
			prefer: regexp.MustCompile(`(?i)(incremental|step by step|smaller steps|in parts|gradual)`),
		},
		{
			name: "Investigate first", summary: "Study the workspace and write a proposal, changing no source file.",
			build:      investigate,
			pros:       []string{"Changes no source file", "Leaves a written proposal to decide on"},
			cons:       []string{"Does not carry out the goal itself", "Needs a second run to make the change"},
			risks:      []reply.Risk{{Description: "The goal stays undone until the proposal is acted on", Impact: plan.ImpactMedium, Likelihood: plan.LikelihoodHigh, Mitigation: "Start a second run from the proposal"}},
			complexity: plan.ComplexityLow, confidence: 0.7,
			prefer: regexp.MustCompile(`(?i)(investigat|analy|propos|read-only|read only|do not change|don't change)`),
		},
	}
}

// orderVariants moves the variants the feedback asks for to the front,
// keeping the default order otherwise.
func orderVariants(all []variant, feedback string) []variant {
	if feedback == "" {
		return all
	}
	var first, rest []variant
	for _, v := range all {
		if v.prefer != nil && v.prefer.MatchString(feedback) {
			first = append(first, v)
		} else {
			rest = append(rest, v)
		}
	}
	return append(first, rest...)
}

// isCheck reports whether a step only verifies or reviews.
func isCheck(s plan.Step) bool {
	return s.Kind == plan.KindTesting || s.Kind == plan.KindValidation
}

// minimal keeps the code generation steps only; a base without any (an
// analysis) keeps its steps that are neither checks nor a plain listing.
func minimal(w workspace, goal string, base []plan.Step) []plan.Step {
	var gen, work []plan.Step
	for _, s := range base {
		switch {
		case s.Kind == plan.KindCodeGeneration:
			gen = append(gen, s)
		case !isCheck(s) && !(s.Action == plan.ActionTool && s.Kind == plan.KindFileOperation):
			work = append(work, s)
		}
	}
	switch {
	case len(gen) > 0:
		return gen
	case len(work) > 0:
		return work
	}
	return []plan.Step{w.changeStep("Carry out the goal", goal)}
}

// thorough adds a study of the code before the first change, a check when
// the base has none, a review and a written record.
func thorough(w workspace, goal string, base []plan.Step) []plan.Step {
	var out []plan.Step
	studied, checked, reviewed := false, false, false
	for _, s := range base {
		if s.Kind == plan.KindCodeAnalysis {
			studied = true
		}
		if s.Kind == plan.KindCodeGeneration && !studied {
			out = append(out, w.studyStep(goal))
			studied = true
		}
		checked = checked || s.Kind == plan.KindTesting
		reviewed = reviewed || s.Kind == plan.KindValidation
		out = append(out, s)
	}
	if !checked && w.testable() {
		out = append(out, w.checkStep("Run the tests", goal))
	}
	if !reviewed {
		out = append(out, reviewStep(goal))
	}
	return append(out, w.notesStep(goal))
}

// incremental splits each code generation step into a first part and the
// rest, with a check after each part (unless a check follows anyway). The
// check after the rest is skipped when the rest changed no file: the
// check of the first part saw the workspace as it stays.
func incremental(w workspace, goal string, base []plan.Step) []plan.Step {
	var out []plan.Step
	restCheck := ""
	for i, s := range base {
		if s.Kind != plan.KindCodeGeneration || s.Action == plan.ActionTool {
			if restCheck != "" && isCheck(s) {
				s.SkipCondition = restCheck
			}
			restCheck = ""
			out = append(out, s)
			continue
		}
		first, rest := s.Clone(), s.Clone()
		first.Title, rest.Title = s.Title+" — first part", s.Title+" — the rest"
		setPrompt(&first, "Do only the smallest useful part of this first, leaving the workspace working: ")
		setPrompt(&rest, "The first part is done; finish the rest of this: ")
		first.Estimated, rest.Estimated = s.Estimated/2, s.Estimated/2
		rest.ID = fmt.Sprintf("@rest-%d", i+1)
		restCheck = rest.ID + ".filesChanged == 0"
		out = append(out, first, w.checkStep("Check the first part", goal), rest)
		if i+1 >= len(base) || !isCheck(base[i+1]) {
			check := w.checkStep("Check the rest", goal)
			check.SkipCondition, restCheck = restCheck, ""
			out = append(out, check)
		}
	}
	return out
}

// investigate keeps the steps that only look, then writes a proposal.
func investigate(w workspace, goal string, base []plan.Step) []plan.Step {
	var out []plan.Step
	for _, s := range base {
		if s.Kind == plan.KindCodeGeneration || isCheck(s) {
			continue
		}
		if s.Action == plan.ActionAgent && s.Config.Agent != nil {
			s.Config.Agent.Tools = w.toolset(plan.ToolListFiles, plan.ToolSearchCode, plan.ToolReadFile)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		out = append(out, w.surveyStep(goal), w.studyStep(goal))
	}
	out = append(out, llmStep("Write a proposal", "Propose the change, file by file", plan.KindCodeAnalysis,
		time.Minute, "From what was found, propose file by file how to carry out this goal: "+goal))
	s := agentStep("Save the proposal", "Write PROPOSAL.md", plan.KindFileOperation, time.Minute,
		w.toolset(plan.ToolWriteFile), "Write PROPOSAL.md with the proposal for: "+goal)
	return append(out, s)
}

// setPrompt prefixes a step's prompt.
func setPrompt(s *plan.Step, prefix string) {
	switch {
	case s.Config.Agent != nil:
		s.Config.Agent.Prompt = prefix + s.Config.Agent.Prompt
	case s.Config.LLM != nil:
		s.Config.LLM.Prompt = prefix + s.Config.LLM.Prompt
	}
}
