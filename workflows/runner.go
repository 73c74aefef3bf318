package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// runner runs the executor's steps, each in its own coroutine: a step's
// tries, its agent turns and tool calls, and its fallback. It writes the
// step it runs (status, note, result) in the executor's plan, which it
// reaches through x; each call asks the gate, works on the plan's files
// (files) and is checked against the budget and the history budget first,
// which halt execution when they run out.
type runner struct {
	x      stepPlan
	run    stepRun
	gate   *gate
	files  *files
	budget *budget
	log    eventLog
	// ex, workspace, prompts and history are the request's and the run's.
	ex        signals.ExecutionPolicy
	workspace string
	prompts   activities.Prompts
	history   historyBudget
	// refused marks the steps whose last call was refused, by the gate
	// or because the tools changed: a refusal is final, the step's
	// retries do not ask again.
	refused map[string]bool
}

// stepPlan is what the runner asks of the executor: the plan and its
// steps, why execution stopped, and to halt it.
type stepPlan interface {
	plan() *plan.Plan
	step(id string) *plan.Step
	stopped() halt
	halt(ctx workflow.Context, h halt)
	percent() int
}

// stepRun is what the runner asks of the run: to report, the goal a step
// works towards, the recorded tools, and the reason the deadline gave if
// it passed.
type stepRun interface {
	reporter
	goal() string
	recorded() recorded
	deadline() string
}

// markRunning sets a step running and stamps its start.
func (r *runner) markRunning(ctx workflow.Context, id string) {
	if s := r.x.step(id); s != nil {
		now := workflow.Now(ctx)
		s.Status = plan.StepRunning
		s.StartedAt = &now
	}
}

// retrying shows step id waiting to try again after attempt, saying why.
func (r *runner) retrying(ctx workflow.Context, id string, attempt int, note string) {
	if s := r.x.step(id); s != nil {
		s.Status = plan.StepRetrying
		s.Note = note
		r.run.publish(ctx)
		r.log.record(ctx, signals.EventStepRetried, s, fmt.Sprintf("step %d retries: %s", s.Number, note),
			stepData{Percent: r.x.percent(), Attempt: attempt})
	}
}

// stepLabel is the activity summary prefix of a step: "step 3/7 · Title".
func (r *runner) stepLabel(step plan.Step) string {
	return fmt.Sprintf("step %d/%d · %s", step.Number, len(r.x.plan().Steps), step.Title)
}

// stepInput is what an llm step or an agent turn gets.
func (r *runner) stepInput(step plan.Step) activities.StepInput {
	p := r.x.plan()
	return activities.StepInput{
		PlanID:    p.ID,
		Context:   plan.BuildStepContext(r.run.goal(), p, step.ID),
		Workspace: r.workspace,
		Prompts:   r.prompts,
	}
}

// checkHistory is called before every step try, agent turn and tool call,
// where a run cannot continue as new: past the budget it halts execution
// (no step starts any more, pending ones are cancelled, the run ends
// failed with the reason) and returns the reason for the step to fail
// with; otherwise "".
func (r *runner) checkHistory(ctx workflow.Context) string {
	reason := historyExhausted(ctx, r.history)
	if reason == "" {
		return ""
	}
	if !r.x.stopped().fails() {
		workflow.GetLogger(ctx).Warn("history budget exhausted", "reason", reason)
		r.run.noteError(reason)
		r.x.halt(ctx, halt{kind: haltHistory, reason: reason})
	}
	return reason
}
