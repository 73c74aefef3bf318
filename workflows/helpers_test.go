package workflows

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// stepTime is how long every mocked step activity takes on the workflow
// clock, so that delayed callbacks can land in the middle of execution:
// with sequential steps, step n runs from (n-1)·stepTime to n·stepTime.
const stepTime = time.Minute

// fakes are the scripted activities. Each func may be replaced by a test
// before run; the defaults make a plain happy path. Calls are recorded.
// Mocks run on their own goroutines, hence the mutex.
type fakes struct {
	mu    sync.Mutex
	calls map[string]int

	clarify   func(activities.ClarifyInput) (activities.ClarifyOutput, error)
	options   func(activities.OptionsInput) (activities.OptionsOutput, error)
	llmStep   func(activities.StepInput) (plan.StepResult, error)
	agentTurn func(activities.AgentTurnInput) (activities.AgentTurnOutput, error)
	reflect   func(activities.ReflectInput) (plan.Reflection, error)
	summarize func(activities.SummarizeInput) (activities.SummarizeOutput, error)
	runTool   func(activities.ToolInput) (activities.ToolOutput, error)
	snapshot  func(activities.SnapshotInput) (activities.SnapshotOutput, error)
	restore   func(activities.RestoreInput) (activities.RestoreOutput, error)
	notify    func(activities.NotifyInput) (activities.NotifyOutput, error)
	acquire   func(activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error)
	goalAttr  func(activities.GoalAttrInput) (activities.GoalAttrOutput, error)
	receiver  func() (activities.ReceiverOutput, error)
	tools     func() (signals.RecordedTools, error)
	mcpCall   func(activities.MCPCallInput) (activities.MCPCallOutput, error)

	clarifyIn   []activities.ClarifyInput
	optionsIn   []activities.OptionsInput
	stepIn      []activities.StepInput
	agentIn     []activities.AgentTurnInput
	reflectIn   []activities.ReflectInput
	summarizeIn []activities.SummarizeInput
	toolIn      []activities.ToolInput
	notifyIn    []activities.NotifyInput
	acquireIn   []activities.AcquireWorkspaceInput
	goalAttrIn  []activities.GoalAttrInput
	priorityIn  []activities.PlanPriorityInput
	mcpIn       []activities.MCPCallInput
	// released are the lease releases the run signalled, with the
	// registry's workflow id.
	released []release
}

// release is a release-workspace signal the run sent.
type release struct {
	registry string
	req      signals.WorkspaceLeaseRequest
}

// newFakes returns fakes for a happy path: the goal is kept, two valid
// options of three chained llm steps, steps succeed with 10 tokens each,
// reflection continues.
func newFakes() *fakes {
	return &fakes{
		calls: map[string]int{},
		tools: func() (signals.RecordedTools, error) {
			return signals.RecordedTools{Approval: signals.ApprovalPolicy{}.WithDefaults(signals.ApprovalPolicy{})}, nil
		},
		mcpCall: func(in activities.MCPCallInput) (activities.MCPCallOutput, error) {
			return activities.MCPCallOutput{Output: "called " + in.Name}, nil
		},
		clarify: func(in activities.ClarifyInput) (activities.ClarifyOutput, error) {
			return activities.ClarifyOutput{Goal: in.Task.Goal, Usage: plan.Usage{TotalTokens: 5}}, nil
		},
		options: func(in activities.OptionsInput) (activities.OptionsOutput, error) {
			return activities.OptionsOutput{Options: []plan.Option{
				option("Careful", plan.ComplexityLow, 0.9, llmSteps(3)...),
				option("Quick", plan.ComplexityHigh, 0.5, llmSteps(3)...),
			}, Usage: plan.Usage{TotalTokens: 20}}, nil
		},
		llmStep: func(in activities.StepInput) (plan.StepResult, error) {
			return plan.StepResult{Success: true, Output: "done " + in.Context.Step.ID, Usage: plan.Usage{TotalTokens: 10}}, nil
		},
		agentTurn: func(activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
			return activities.AgentTurnOutput{Content: "answer"}, nil
		},
		reflect: func(activities.ReflectInput) (plan.Reflection, error) {
			return plan.Reflection{Decision: plan.DecisionContinue}, nil
		},
		summarize: func(in activities.SummarizeInput) (activities.SummarizeOutput, error) {
			return activities.SummarizeOutput{Summary: "summary: " + in.Status}, nil
		},
		runTool: func(in activities.ToolInput) (activities.ToolOutput, error) {
			return activities.ToolOutput{Success: true, Output: "ran " + in.Call.Name}, nil
		},
		snapshot: func(activities.SnapshotInput) (activities.SnapshotOutput, error) {
			return activities.SnapshotOutput{SnapshotID: "snap-1", Files: 2}, nil
		},
		restore: func(activities.RestoreInput) (activities.RestoreOutput, error) {
			return activities.RestoreOutput{Restored: []string{"main.go"}, Removed: []string{"new.go"}}, nil
		},
		notify: func(activities.NotifyInput) (activities.NotifyOutput, error) {
			return activities.NotifyOutput{Sent: true, StatusCode: 204}, nil
		},
		acquire: func(in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
			return activities.AcquireWorkspaceOutput{Lease: signals.WorkspaceLease{Key: in.Workspace, PlanID: in.PlanID,
				RunID: in.RunID}}, nil
		},
		// The activity of a worker that does not encrypt.
		goalAttr: func(in activities.GoalAttrInput) (activities.GoalAttrOutput, error) {
			return (&activities.Notices{}).GoalAttr(context.Background(), in)
		},
		// A worker with a webhook of its own: every event is delivered.
		receiver: func() (activities.ReceiverOutput, error) { return activities.ReceiverOutput{}, nil },
	}
}

// notified returns the webhook inputs in the order the workflow sent
// them (the order of their idempotency keys' sequence numbers): deliveries
// run concurrently, so the order they ran in may differ.
func (f *fakes) notified() []activities.NotifyInput {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]activities.NotifyInput(nil), f.notifyIn...)
	seq := func(in activities.NotifyInput) int {
		n, _ := strconv.Atoi(in.IdempotencyKey[strings.LastIndex(in.IdempotencyKey, "/")+1:])
		return n
	}
	sort.SliceStable(out, func(i, j int) bool { return seq(out[i]) < seq(out[j]) })
	return out
}

// events lists the webhook events in the order the workflow sent them.
func (f *fakes) events() []activities.NotifyEvent {
	var out []activities.NotifyEvent
	for _, in := range f.notified() {
		out = append(out, in.Event)
	}
	return out
}

// record counts a call and appends its input under the lock.
func record[T any](f *fakes, name string, list *[]T, in T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[name]++
	*list = append(*list, in)
}

// count returns how often the activity name was called.
func (f *fakes) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[name]
}

// stepIDs lists the step ids of every ExecuteLLMStep call, in call order.
func (f *fakes) stepIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, in := range f.stepIn {
		ids = append(ids, in.Context.Step.ID)
	}
	return ids
}

// llmStep builds a valid llm step.
func llmStep(id string, deps ...string) plan.Step {
	return plan.Step{
		ID:        id,
		Title:     "Step " + id,
		Action:    plan.ActionLLM,
		Config:    plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "do " + id}},
		DependsOn: deps,
		Status:    plan.StepPending,
		Estimated: plan.Duration(time.Minute),
	}
}

// llmSteps builds n chained llm steps s1 → s2 → … sn.
func llmSteps(n int) []plan.Step {
	steps := make([]plan.Step, n)
	for i := range steps {
		id := fmt.Sprintf("s%d", i+1)
		if i == 0 {
			steps[i] = llmStep(id)
			continue
		}
		steps[i] = llmStep(id, fmt.Sprintf("s%d", i))
	}
	return steps
}

// option builds an option without ids (the workflow assigns them).
func option(title string, c plan.Complexity, confidence float64, steps ...plan.Step) plan.Option {
	for i := range steps {
		steps[i].Number = i + 1
	}
	return plan.Option{
		Title: title,
		Plan: plan.Plan{
			Title:     title,
			Steps:     steps,
			Estimates: plan.Estimates{Complexity: c, Confidence: confidence},
			Status:    plan.PlanDraft,
			Version:   1,
		},
	}
}

// onePlan makes the options fake return a single option with steps.
func (f *fakes) onePlan(steps ...plan.Step) {
	f.options = func(activities.OptionsInput) (activities.OptionsOutput, error) {
		return activities.OptionsOutput{Options: []plan.Option{option("Only", plan.ComplexityLow, 0.9, steps...)}}, nil
	}
}
