package offline

import (
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// workspace is what the plan phase knows of the workspace and the tools.
type workspace struct {
	files []string
	// tools are the tools offered; nil when the request lists none, which
	// means the product's usual set.
	tools map[string]bool
}

// has reports whether a tool may be used.
func (w workspace) has(tool string) bool { return w.tools == nil || w.tools[tool] }

// testMarkers are files that mean run_tests has something to run.
var testMarkers = []string{"go.mod", "package.json", "Makefile", "pyproject.toml", "setup.py", "Cargo.toml", "pom.xml"}

// testable reports whether run_tests makes sense in the workspace.
func (w workspace) testable() bool {
	if !w.has(plan.ToolRunTests) {
		return false
	}
	for _, f := range w.files {
		base := f[strings.LastIndex(f, "/")+1:]
		for _, m := range testMarkers {
			if base == m {
				return true
			}
		}
		if strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") ||
			strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") {
			return true
		}
	}
	return false
}

// sources reports whether the workspace holds source code to search.
func (w workspace) sources() bool {
	for _, f := range w.files {
		switch f[strings.LastIndex(f, ".")+1:] {
		case "go", "js", "ts", "tsx", "jsx", "py", "rb", "rs", "java", "kt", "c", "h", "cc", "cpp", "cs", "php":
			return true
		}
	}
	return false
}

// toolset filters names to the tools that may be used, dropping
// search_code when there is no source to search.
func (w workspace) toolset(names ...string) []string {
	var out []string
	for _, n := range names {
		if !w.has(n) || (n == plan.ToolSearchCode && !w.sources()) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// Step builders. Estimates are what the offline brain claims; they only
// need to be plausible and to differ between options.

func llmStep(title, desc string, kind plan.StepKind, est time.Duration, prompt string) plan.Step {
	return plan.Step{Title: title, Description: desc, Kind: kind, Action: plan.ActionLLM, Estimated: plan.Duration(est),
		Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: prompt}}}
}

func toolStep(title, desc string, kind plan.StepKind, est time.Duration, name string, params map[string]any) plan.Step {
	return plan.Step{Title: title, Description: desc, Kind: kind, Action: plan.ActionTool, Estimated: plan.Duration(est),
		Config: plan.StepConfig{Tool: &plan.ToolConfig{Name: name, Params: params}}}
}

func agentStep(title, desc string, kind plan.StepKind, est time.Duration, tools []string, prompt string) plan.Step {
	return plan.Step{Title: title, Description: desc, Kind: kind, Action: plan.ActionAgent, Estimated: plan.Duration(est),
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: prompt, Tools: tools}}}
}

// surveyStep lists the workspace, or asks for a description of it when
// list_files is not offered.
func (w workspace) surveyStep(goal string) plan.Step {
	if w.has(plan.ToolListFiles) {
		return independent(toolStep("Survey the workspace", "List every file so later steps see the layout",
			plan.KindFileOperation, 10*time.Second, plan.ToolListFiles, map[string]any{"recursive": true}))
	}
	return llmStep("Outline the approach", "Work out what must change", plan.KindCodeAnalysis, time.Minute,
		"Outline what must change to: "+goal)
}

// studyStep reads the code the goal touches.
func (w workspace) studyStep(goal string) plan.Step {
	return agentStep("Study the relevant code", "Read and search the files the goal touches",
		plan.KindCodeAnalysis, 3*time.Minute,
		w.toolset(plan.ToolListFiles, plan.ToolSearchCode, plan.ToolReadFile),
		"Find and read the code this goal touches, and report what must change: "+goal)
}

// changeStep carries out the goal.
func (w workspace) changeStep(title, goal string) plan.Step {
	s := agentStep(title, "Make the change in the workspace", plan.KindCodeGeneration, 5*time.Minute,
		w.toolset(plan.ToolListFiles, plan.ToolSearchCode, plan.ToolReadFile, plan.ToolWriteFile),
		"Carry out this goal in the workspace; read each file before changing it and write the result: "+goal)
	s.MaxRetries = 1
	return s
}

// Retries of a step that runs the tests: a flaky test gets two more
// tries, a moment apart, before the step fails.
const (
	testRetries    = 2
	testRetryDelay = plan.Duration(2 * time.Second)
)

// checkStep verifies a change: the tests when there are any (retried, see
// testRetries), else a review.
func (w workspace) checkStep(title, goal string) plan.Step {
	if w.testable() {
		s := toolStep(title, "Run the project's tests", plan.KindTesting, 2*time.Minute, plan.ToolRunTests, nil)
		s.MaxRetries, s.RetryDelay = testRetries, testRetryDelay
		return s
	}
	return llmStep(title, "Review the change, as there are no tests to run", plan.KindValidation, time.Minute,
		"Review the change made for this goal and list any mistakes: "+goal)
}

// reviewStep reviews the finished work against the goal.
func reviewStep(goal string) plan.Step {
	s := llmStep("Review the result against the goal", "Check nothing is missing", plan.KindValidation, time.Minute,
		"Review what was done against the goal and list what is missing: "+goal)
	s.Skippable = true
	return s
}

// notesStep records what was done in NOTES.md.
func (w workspace) notesStep(goal string) plan.Step {
	s := agentStep("Record what changed", "Write NOTES.md with what was done and why", plan.KindFileOperation, time.Minute,
		w.toolset(plan.ToolReadFile, plan.ToolWriteFile),
		"Write NOTES.md with a short record of what was done and why, for: "+goal)
	s.Skippable = true
	return s
}

// runsTests reports whether s is a step that runs the tests.
func runsTests(s plan.Step) bool {
	return s.Action == plan.ActionTool && s.Config.Tool != nil && s.Config.Tool.Name == plan.ToolRunTests
}

// fixTestsStep is the fallback of a step that runs the tests: when they
// still fail after the retries, an agent reads the failures, fixes their
// cause and runs them again. id is its internal id.
func (w workspace) fixTestsStep(id, goal string) plan.Step {
	s := agentStep("Fix what the tests report", "Runs only when the tests fail after their retries",
		plan.KindCodeGeneration, 4*time.Minute,
		w.toolset(plan.ToolReadFile, plan.ToolSearchCode, plan.ToolWriteFile, plan.ToolRunTests),
		"The tests failed. Read the failures, fix their cause and run the tests again, for: "+goal)
	s.ID = id
	return s
}

// withFallbacks gives every step that runs the tests a fixTestsStep as
// its fallback, right after it, while the plan stays within maxSteps
// (0: no limit).
func (w workspace) withFallbacks(steps []plan.Step, goal string, maxSteps int) []plan.Step {
	out := make([]plan.Step, 0, len(steps)+1)
	n := len(steps)
	for _, s := range steps {
		if runsTests(s) && s.FallbackStepID == "" && (maxSteps == 0 || n < maxSteps) {
			fb := w.fixTestsStep(fmt.Sprintf("@fix-tests-%d", len(out)+1), goal)
			s.FallbackStepID = fb.ID
			out = append(out, s, fb)
			n++
			continue
		}
		out = append(out, s)
	}
	return out
}

// maxParts bounds the parts of a goal planned as independent steps.
const maxParts = 8

// goalParts returns the parts of a goal that lists independent pieces of
// work after a colon, separated by semicolons ("Write notes on: parsing;
// caching; logging"), and nil for any other goal.
func goalParts(goal string) (string, []string) {
	head, list, ok := strings.Cut(goal, ":")
	if !ok {
		return "", nil
	}
	var parts []string
	for _, p := range strings.Split(list, ";") {
		if p = strings.TrimSpace(p); p != "" && len(parts) < maxParts {
			parts = append(parts, p)
		}
	}
	if len(parts) < 2 {
		return "", nil
	}
	return strings.TrimSpace(head), parts
}

// partSteps plans a goal of independent parts: a survey and one step per
// part, all independent of each other, then one step that combines them.
func (w workspace) partSteps(head string, parts []string) []plan.Step {
	steps := []plan.Step{w.surveyStep(head)}
	for i, p := range parts {
		steps = append(steps, independent(llmStep(fmt.Sprintf("Part %d: %s", i+1, plan.Truncate(p, 60)),
			"One of the independent parts of the goal", plan.KindCodeAnalysis, time.Minute, head+": "+p)))
	}
	return append(steps, llmStep("Combine the parts", "Bring the parts together into one result",
		plan.KindCodeAnalysis, time.Minute, "Combine the results of every part into one answer for: "+head))
}

// baseSteps returns the steps the options vary on: one per part when the
// goal lists independent parts (see goalParts), else a template's, filled
// for the goal, when one fits, else survey, change and check. It returns
// the template's name, if any.
func (w workspace) baseSteps(goal, template string) ([]plan.Step, string) {
	if head, parts := goalParts(goal); parts != nil {
		return w.partSteps(head, parts), ""
	}
	name, ok := template, template != "" && template != "auto"
	if !ok {
		name, ok = plan.DetectTaskType(goal)
	}
	t, found := plan.TemplateByName(name)
	if !ok || !found {
		return []plan.Step{w.surveyStep(goal), w.changeStep("Carry out the goal", goal), w.checkStep("Verify the change", goal)}, ""
	}
	p := plan.FromTemplate(t, plan.Task{Goal: goal, Context: plan.TaskContext{CurrentFiles: w.files}}, "offline", time.Time{})
	steps := make([]plan.Step, 0, len(p.Steps))
	for _, s := range p.Steps {
		if p.IsFallbackOnly(s.ID) {
			continue // the brain adds its own fallbacks (withFallbacks) once the variant is built
		}
		steps = append(steps, w.fit(templateStep(s), goal))
	}
	return steps, t.Name
}

// templateStep turns a template's step into the brain's form: its
// position ids are gone (the variants move steps around), so a step the
// template starts with no dependency is marked independent, any other
// follows the steps before it, and fallbacks and skip conditions, which
// name positions, are left to the brain.
func templateStep(s plan.Step) plan.Step {
	free := len(s.DependsOn) == 0
	s.ID, s.DependsOn, s.FallbackStepID, s.SkipCondition = "", nil, "", ""
	if free {
		return independent(s)
	}
	return s
}

// fit adapts a template step to the workspace: agent steps lose tools
// that are not offered, and a tool step whose tool is not offered (or
// run_tests without tests) becomes a review.
func (w workspace) fit(s plan.Step, goal string) plan.Step {
	switch {
	case s.Action == plan.ActionAgent && s.Config.Agent != nil:
		s.Config.Agent.Tools = w.toolset(s.Config.Agent.Tools...)
		s.RequiredTools = nil
	case s.Action == plan.ActionTool && s.Config.Tool != nil:
		name := s.Config.Tool.Name
		if !w.has(name) || (name == plan.ToolRunTests && !w.testable()) {
			r := llmStep(s.Title, "Done by review: the "+name+" tool is not available here", plan.KindValidation,
				time.Minute, "Without running "+name+", reason about this step ("+s.Title+") for: "+goal)
			r.MaxRetries = s.MaxRetries
			return r
		}
	}
	return s
}
