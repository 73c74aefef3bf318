package prompts

import (
	"time"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// The samples Load renders an operator's templates with: every field set
// and every list non-empty, so that each branch a template takes on real
// data is taken once at the worker's start.

// sampleTask is a task with everything a task may carry.
func sampleTask() plan.Task {
	return plan.Task{ID: "t1", Goal: "Add a discount to the cart", Requirements: []string{"percent or fixed"},
		Constraints: []string{"no new dependency"}, Priority: plan.PriorityHigh,
		Context: plan.TaskContext{WorkspaceRoot: "/work/shop", CurrentFiles: []string{"cart.go"}},
		History: []plan.Message{{Role: plan.MessageUser, Content: "The cart is in cart.go"}}}
}

// sampleStepContext is a step in the middle of a plan.
func sampleStepContext() plan.StepContext {
	step := plan.Step{ID: "s2", Number: 2, Title: "Implement the discount", Description: "Edit cart.go",
		Kind: plan.KindCodeGeneration, Action: plan.ActionAgent, Status: plan.StepRunning, DependsOn: []string{"s1"},
		Config: plan.StepConfig{Agent: &plan.AgentConfig{Prompt: "Add the discount", Tools: []string{"read_file"}}}}
	return plan.StepContext{Goal: "Add a discount to the cart", Step: step, Position: 2, Total: 4,
		Before:       []plan.StepDigest{{ID: "s1", Title: "Survey", Status: plan.StepCompleted, Digest: "cart.go"}},
		After:        []plan.StepDigest{{ID: "s3", Title: "Run the tests", Status: plan.StepPending}},
		EarlierCount: 1, LaterCount: 1, Summary: "s0: completed"}
}

func sampleClarify() ClarifyData {
	return ClarifyData{Task: sampleTask(), AskQuestions: true, Answers: []QA{{Question: "Which cart?", Answer: "cart.go"}},
		Files: []string{"cart.go", "go.mod"}, MoreFiles: true}
}

func samplePlan() PlanData {
	return PlanData{Task: sampleTask(), Goal: "Add a percentage discount to the cart", Count: 3, MaxSteps: 8,
		Feedback: "fewer steps", Previous: []string{"Balanced"},
		Invalid: []plan.DroppedOption{{Title: "Broken", Reason: "invalid plan", Issues: []string{"cycle"}}},
		Files:   []string{"cart.go"}, MoreFiles: true,
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file"}}}
}

func sampleStep() StepData {
	return StepData{Context: sampleStepContext(), Prompt: "Add the discount", Workspace: "/work/shop",
		Tools: []string{"read_file", "write_file"}, Iteration: 2, MaxIterations: 8, Remaining: 6}
}

func sampleReflect() ReflectData {
	res := &plan.StepResult{Success: false, Output: "edited cart.go", Error: "tests failed", Attempts: 2,
		Duration:     plan.Duration(3 * time.Second),
		FilesChanged: []plan.FileChange{{Path: "cart.go", Op: plan.FileModified, LinesAdded: 3}}}
	remaining := []plan.StepDigest{{ID: "s3", Title: "Run the tests", Status: plan.StepPending}}
	return NewReflectData("Add a discount to the cart", sampleStepContext(), res, remaining, 1, "balanced")
}

func sampleSummarize() SummarizeData {
	p := plan.Plan{ID: "p1", Title: "Balanced", Steps: []plan.Step{
		{ID: "s1", Title: "Survey", Status: plan.StepCompleted, Result: &plan.StepResult{Success: true, Output: "cart.go"}},
		{ID: "s2", Title: "Implement", Status: plan.StepFailed, Result: &plan.StepResult{Error: "tests failed"}},
		{ID: "s3", Title: "Review", Status: plan.StepSkipped, Note: "not needed"}}}
	d := NewSummarizeData("Add a discount to the cart", "failed", true, p.Digest())
	d.More = 1
	return d
}
