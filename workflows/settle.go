package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// outcome turns the end of execution into a status and an error: err
// when act returned one, the reason of a halt that fails the run, the
// steps that failed unless the goal was declared achieved, or success.
func (e *executor) outcome(err error) (signals.Status, error) {
	if err != nil {
		return signals.StatusFailed, err
	}
	if e.stop.fails() {
		return signals.StatusFailed, errors.New(e.stop.reason)
	}
	if e.st.Plan == nil {
		return signals.StatusCompleted, nil
	}
	var failed []string
	for _, s := range e.st.Plan.Steps {
		if s.Status == plan.StepFailed {
			msg := s.ID
			if s.Result != nil && s.Result.Error != "" {
				msg += ": " + s.Result.Error
			}
			failed = append(failed, msg)
		}
	}
	// A reflection (or a step's finish_plan) that declared the goal
	// achieved outweighs the steps that failed on the way there.
	if len(failed) > 0 && e.stop.kind != haltGoal {
		return signals.StatusFailed, fmt.Errorf("%d step(s) failed: %s", len(failed), strings.Join(failed, "; "))
	}
	return signals.StatusCompleted, nil
}

// settle settles the steps at the run's end, and what the executor still
// holds. When why is set (the run was cancelled, or its deadline passed)
// it waits for the running steps to see the cancellation and cancels
// every step not done, saying why; otherwise it skips the fallbacks nobody
// needed and cancels the steps a dependency that did not complete blocks.
// Then it brings the workspace to the plan's files (files.leave) and
// forgets the skip confirmations still open.
func (e *executor) settle(ctx workflow.Context, why string) {
	switch p := e.st.Plan; {
	case why != "":
		e.awaitIdle(ctx)
		e.cancelPending(ctx, why, true)
	case p != nil:
		e.skipSteps(ctx, p.UnusedFallbacks(), plan.ActorSystem, "fallback not needed")
		e.markCancelled(ctx, p.Blocked(), "not run: a step it depends on did not complete")
	}
	e.files.leave(ctx)
	e.skips.dropAll()
}

// awaitIdle waits until no step runs: they acknowledged a cancellation.
func (e *executor) awaitIdle(ctx workflow.Context) {
	_ = workflow.Await(ctx, func() bool { return e.running == 0 })
}

// final is the plan as the Result carries it, once the run ended with
// status: its results compacted, its status the run's; nil when no plan
// was selected.
func (e *executor) final(ctx workflow.Context, status signals.Status) *plan.Plan {
	p := e.st.Plan
	compactAll(p)
	if p != nil {
		p.Status = planStatus(status)
		p.UpdatedAt = workflow.Now(ctx)
	}
	return p
}

// planStatus maps a run status to the plan's.
func planStatus(s signals.Status) plan.PlanStatus {
	switch s {
	case signals.StatusCompleted:
		return plan.PlanCompleted
	case signals.StatusCancelled:
		return plan.PlanCancelled
	}
	return plan.PlanFailed
}
