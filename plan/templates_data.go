package plan

import "time"

// Template names.
const (
	TemplateRefactoring   = "refactoring"
	TemplateBugFix        = "bug_fix"
	TemplateFeature       = "feature"
	TemplateDocumentation = "documentation"
	TemplateAnalysis      = "analysis"
)

// readTools explore the workspace; writeTools change it.
var (
	readTools  = []string{ToolListFiles, ToolSearchFiles, ToolSearchCode, ToolReadFile}
	writeTools = []string{ToolListFiles, ToolSearchCode, ToolReadFile, ToolWriteFile}
)

func tmplLLM(title string, kind StepKind, est time.Duration, prompt string) Step {
	return Step{Title: title, Kind: kind, Action: ActionLLM, Estimated: Duration(est),
		Config: StepConfig{LLM: &LLMConfig{Prompt: prompt}}}
}

func tmplTool(title string, kind StepKind, est time.Duration, name string, params map[string]any) Step {
	return Step{Title: title, Kind: kind, Action: ActionTool, Estimated: Duration(est), RequiredTools: []string{name},
		Config: StepConfig{Tool: &ToolConfig{Name: name, Params: params}}}
}

func tmplAgent(title string, kind StepKind, est time.Duration, iters int, tools []string, prompt string) Step {
	return Step{Title: title, Kind: kind, Action: ActionAgent, Estimated: Duration(est), RequiredTools: cloneStrings(tools),
		Config: StepConfig{Agent: &AgentConfig{Prompt: prompt, Tools: cloneStrings(tools), MaxIterations: iters}}}
}

// survey lists the workspace so later steps see its layout.
func survey() Step {
	return tmplTool("Survey the workspace", KindFileOperation, 10*time.Second, ToolListFiles, map[string]any{"recursive": true})
}

// Retries of a step that runs the tests: a flaky test gets two more tries,
// a few seconds apart, before the fallback or the failure.
const (
	testRetries    = 2
	testRetryDelay = Duration(5 * time.Second)
)

// runTests runs the project's tests, retried (a flaky test should not fail
// the plan), with the step fallback in its place when they keep failing.
func runTests(title, fallback string) Step {
	s := tmplTool(title, KindTesting, 2*time.Minute, ToolRunTests, nil)
	s.MaxRetries, s.RetryDelay, s.FallbackStepID = testRetries, testRetryDelay, fallback
	return s
}

// fixTests is the fallback of runTests: an agent reads the failures,
// fixes their cause and runs the tests again.
func fixTests() Step {
	s := tmplAgent("Fix what the tests report", KindCodeGeneration, 4*time.Minute, 12,
		append(cloneStrings(writeTools), ToolRunTests),
		"The tests failed after the change for: {request}\nRead the failures, fix their cause and run the tests again.")
	s.Description = "Runs only when the tests keep failing"
	return s
}

// independent marks a template step as depending on nothing, so that it
// may run beside the steps around it.
func independent(s Step) Step {
	s.DependsOn = []string{}
	return s
}

// after makes a template step depend on the steps with the position ids.
func after(s Step, ids ...string) Step {
	s.DependsOn = ids
	return s
}

// skipWhen gives a template step a skip condition over position ids.
func skipWhen(s Step, cond string) Step {
	s.SkipCondition = cond
	return s
}

// builtinTemplates returns fresh copies of the built-in templates
// (refactoring, bug fix, feature, documentation, analysis), their steps
// written for the product's tools, so that a caller may change what it
// gets.
func builtinTemplates() []Template {
	return []Template{refactoringTemplate(), bugFixTemplate(), featureTemplate(), documentationTemplate(), analysisTemplate()}
}

// refactoringTemplate surveys, analyses, plans, refactors and tests.
func refactoringTemplate() Template {
	return Template{Name: TemplateRefactoring, Description: "Multi-file code refactoring that keeps behaviour unchanged",
		Keywords: []string{"refactor", "restructure"},
		Steps: []Step{
			survey(),
			tmplAgent("Analyze the current code", KindCodeAnalysis, 3*time.Minute, 8, readTools,
				"Analyze the code this refactoring touches: {request}\nRead the relevant files and report their structure, the call sites to update and the risks."),
			tmplLLM("Plan the changes", KindCodeAnalysis, time.Minute,
				"From the analysis, list the concrete file-by-file changes for: {request}\nBehaviour must stay the same."),
			tmplAgent("Apply the refactoring", KindCodeGeneration, 5*time.Minute, 16, writeTools,
				"Refactor the code as planned for: {request}\nRead each file before changing it and keep behaviour unchanged."),
			// A refactoring that changed no file leaves nothing to test.
			skipWhen(runTests("Run the tests", "s6"), "s4.filesChanged == 0"),
			fixTests(),
		}}
}

// bugFixTemplate understands, locates, fixes, verifies and explains a bug.
func bugFixTemplate() Template {
	return Template{Name: TemplateBugFix, Description: "Find the cause of a bug, fix it and verify the fix",
		Keywords: []string{"bug", "fix", "error", "crash"},
		Steps: []Step{
			tmplLLM("Understand the bug", KindCodeAnalysis, time.Minute,
				"Analyze this bug report and list its likely causes and where to look: {request}"),
			tmplAgent("Find the related code", KindCodeAnalysis, 3*time.Minute, 8, readTools,
				"Find the code responsible for this bug: {request}\nQuote file paths and the lines involved."),
			tmplAgent("Fix the bug", KindCodeGeneration, 5*time.Minute, 12, writeTools,
				"Fix the bug at its cause: {request}\nChange as little as possible; add a test that would have caught it when the project has tests."),
			runTests("Verify the fix", "s6"),
			tmplLLM("Explain the fix", KindValidation, 30*time.Second,
				"Explain in a few sentences the cause of the bug and how it was fixed: {request}"),
			fixTests(),
		}}
}

// featureTemplate designs, implements, tests and reviews a feature.
func featureTemplate() Template {
	return Template{Name: TemplateFeature, Description: "Design, implement and test a new feature",
		Keywords: []string{"add", "implement", "build", "create"},
		Steps: []Step{
			survey(),
			tmplAgent("Design the feature", KindCodeAnalysis, 3*time.Minute, 8, readTools,
				"Design how to implement: {request}\nRead the relevant code and list the files to create or change and why."),
			tmplAgent("Implement the feature", KindCodeGeneration, 8*time.Minute, 20, writeTools,
				"Implement as designed: {request}\nFollow the project's conventions and add tests."),
			runTests("Run the tests", "s6"),
			tmplLLM("Review the change", KindValidation, time.Minute,
				"Review the implementation of: {request}\nList what is done, what is missing and any follow-up."),
			fixTests(),
		}}
}

// documentationTemplate writes documentation from the code.
func documentationTemplate() Template {
	return Template{Name: TemplateDocumentation, Description: "Write or update documentation from the code",
		Keywords: []string{"document", "readme", "docs"},
		Steps: []Step{
			survey(),
			// Listing the files and finding the documents are independent.
			independent(tmplTool("Find existing documentation", KindFileOperation, 10*time.Second, ToolSearchFiles,
				map[string]any{"pattern": "**/*.md"})),
			after(tmplAgent("Study the code to document", KindCodeAnalysis, 3*time.Minute, 8, readTools,
				"Read the code relevant to: {request}\nNote what the documentation must explain, with examples."), "s1", "s2"),
			tmplAgent("Write the documentation", KindCodeGeneration, 4*time.Minute, 12, writeTools,
				"Write or update the documentation for: {request}\nKeep the existing style; every example must match the code."),
			// Nothing written, nothing to check.
			skipWhen(tmplLLM("Check the documentation", KindValidation, time.Minute,
				"Check the documentation written for: {request}\nPoint out anything inaccurate or missing."), "s4.filesChanged == 0"),
		}}
}

// analysisTemplate investigates the code and writes a report.
func analysisTemplate() Template {
	return Template{Name: TemplateAnalysis, Description: "Investigate the code and report findings",
		Keywords: []string{"analy", "audit", "review", "investigate"},
		Steps: []Step{
			survey(),
			tmplAgent("Investigate the code", KindCodeAnalysis, 5*time.Minute, 16, readTools,
				"Investigate the codebase for: {request}\nCollect evidence with file paths and line references."),
			tmplLLM("Write the report", KindCodeAnalysis, time.Minute,
				"Write an analysis report for: {request}\nFrom the findings: summary, details with references, risks and recommendations."),
		}}
}

// detectOrder is the priority in which DetectTaskType tries templates: a
// goal that mentions both a bug and a new feature is a bug fix.
var detectOrder = []string{TemplateRefactoring, TemplateBugFix, TemplateDocumentation, TemplateAnalysis, TemplateFeature}
