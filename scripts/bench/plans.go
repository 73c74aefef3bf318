package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// benchGoal is the goal of every plan the bench runs.
const benchGoal = "Add input validation to the signup handler: reject empty names, malformed e-mail addresses " +
	"and passwords shorter than twelve characters."

// planRun is one plan run to its end and what it cost.
type planRun struct {
	id, firstRunID string
	steps          int
	elapsed        time.Duration
	// usage is the prompt and completion tokens per phase the model
	// counted, when the run was the only one on the model.
	usage map[string]offline.Usage
}

// shortPromptsAbove is the plan length above which steps get one-line
// prompts: a start request may be at most 256 KiB of JSON
// (signals.MaxStartRequestBytes), which a 1,000-step plan with the usual
// prompts exceeds.
const shortPromptsAbove = 500

// llmSteps returns n llm steps in a chain, each with a prompt of a few
// sentences as a planner writes them (one line above shortPromptsAbove).
func llmSteps(n int) []plan.Step {
	steps := make([]plan.Step, n)
	for i := range steps {
		prompt := fmt.Sprintf("Write part %d of the validation for the signup handler. Keep the handler's "+
			"signature, return a 400 with a message naming the field, and say which tests cover the change.", i+1)
		if n > shortPromptsAbove {
			prompt = fmt.Sprintf("Write part %d of the validation.", i+1)
		}
		steps[i] = plan.Step{ID: fmt.Sprintf("s%d", i+1), Title: fmt.Sprintf("Part %d of the signup validation", i+1),
			Action: plan.ActionLLM, Kind: plan.KindCodeGeneration,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: prompt}}}
		if i > 0 {
			steps[i].DependsOn = []string{steps[i-1].ID}
		}
	}
	return steps
}

// externalRequest is a PlanMode start request that runs n llm steps at
// once: no clarification, no options, no selection.
func externalRequest(n int) signals.StartRequest {
	return signals.StartRequest{Goal: benchGoal, Plan: &signals.ExternalPlan{Title: "Signup validation", Steps: llmSteps(n)},
		Execution: signals.ExecutionPolicy{MaxSteps: n}}
}

// comparedMode is the execution mode of the plans measured against the
// bare workflow: complete, which reflects after every step as the bare
// workflow does. In the default balanced mode PlanMode skips the
// reflection after a step that did what it planned (plan.NeedsReflection),
// so the two would no longer do the same work.
const comparedMode = signals.ExecComplete

// comparedRequest is externalRequest in comparedMode.
func comparedRequest(n int) signals.StartRequest {
	req := externalRequest(n)
	req.Execution.Mode = comparedMode
	return req
}

// runPlanMode runs an external plan of n llm steps in comparedMode with pc
// to its end and checks that every step completed. The ratio, history,
// cpu and concurrency sections compare such runs with the bare workflow;
// tokens and stream measure the same runs.
func runPlanMode(ctx context.Context, pc *planclient.Client, id string, n int) (planRun, error) {
	t0 := time.Now()
	run, err := pc.Start(ctx, id, comparedRequest(n))
	if err != nil {
		return planRun{}, fmt.Errorf("start %s: %w", id, err)
	}
	res, err := pc.Result(ctx, id)
	if err != nil {
		return planRun{}, fmt.Errorf("result of %s: %w", id, err)
	}
	pr := planRun{id: id, firstRunID: run.GetRunID(), steps: n, elapsed: time.Since(t0)}
	if res.Status != signals.StatusCompleted || res.Plan == nil {
		return pr, fmt.Errorf("plan %s ended %s: %s", id, res.Status, res.Error)
	}
	if got := res.Plan.Progress().Totals().Completed; got != n {
		return pr, fmt.Errorf("plan %s completed %d of %d steps", id, got, n)
	}
	return pr, nil
}

// runBare runs the bare workflow over n llm steps on queue to its end.
func runBare(ctx context.Context, c client.Client, queue, id string, n int) (planRun, error) {
	p := signals.ExternalPlan{Title: "Signup validation", Steps: llmSteps(n)}.Plan(id, id, benchGoal, time.Now())
	t0 := time.Now()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, bareWorkflowType,
		bareInput{Goal: benchGoal, Plan: p})
	if err != nil {
		return planRun{}, fmt.Errorf("start %s: %w", id, err)
	}
	var done int
	if err := run.Get(ctx, &done); err != nil {
		return planRun{}, fmt.Errorf("bare %s: %w", id, err)
	}
	if done != n {
		return planRun{}, fmt.Errorf("bare %s ran %d of %d steps", id, done, n)
	}
	return planRun{id: id, firstRunID: run.GetRunID(), steps: n, elapsed: time.Since(t0)}, nil
}

// runAll runs job(i) for i in [0, n) on at most par goroutines at once
// and returns the first error.
func runAll(n, par int, job func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, par)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := job(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}
