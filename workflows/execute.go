package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// prepare takes the selected option's plan and snapshots the workspace
// (every first run has one, see newRun), so that rollback can restore it.
func (r *run) prepare(ctx workflow.Context) error {
	o, ok := r.selectedOption()
	if !ok {
		return fmt.Errorf("selected option %q not found", r.st.Options.SelectedID)
	}
	p := o.Plan.Clone()
	p.Status = plan.PlanRunning
	p.UpdatedAt = workflow.Now(ctx)
	r.st.Plan = &p
	r.publish(ctx)
	out, err := snapshotWorkspace(ctx, activities.SnapshotInput{PlanID: p.ID, Workspace: r.req.Workspace}, "snapshot workspace")
	if err != nil {
		return fmt.Errorf("snapshot workspace: %w", err)
	}
	r.st.SnapshotID = out.SnapshotID
	return nil
}

// act runs the plan: steps in dependency order, up to parallelism at once,
// a reflection after each finished step, pauses and continue-as-new at step
// boundaries. It returns when no step can run any more, with the
// cancellation or the continue-as-new error if one ended it.
func (r *run) act(ctx workflow.Context) error {
	r.exec.started = true
	r.setPhase(ctx, plan.PhaseExecuting)
	if err := r.resolveRestoredSkips(ctx); err != nil {
		return err
	}
	for {
		if err := r.drainFinished(ctx); err != nil {
			return err
		}
		r.checkBudget(ctx)
		if r.exec.running == 0 {
			if r.halted() {
				return nil
			}
			if r.st.Paused {
				if err := r.awaitResume(ctx); err != nil {
					return err
				}
				continue
			}
			if err := r.maybeContinueAsNew(ctx); err != nil {
				return err
			}
		}
		settled := r.exec.settled
		progressed := r.launchReady(ctx)
		if r.exec.running == 0 && len(r.exec.finished) == 0 {
			if progressed {
				continue
			}
			if len(r.st.SkipConfirmations) == 0 {
				return nil
			}
		}
		// A step ends, or a skip confirmation is settled, freeing the
		// steps it held.
		if err := workflow.Await(ctx, func() bool { return len(r.exec.finished) > 0 || r.exec.settled != settled }); err != nil {
			return err
		}
	}
}

// halted reports whether no new step may start: a budget stop or a
// reflection that declared the goal achieved.
func (r *run) halted() bool {
	return r.exec.stopReason != "" || r.exec.completedEarly
}

// haltReason says why no new step may start.
func (r *run) haltReason() string {
	if r.exec.stopReason != "" {
		return r.exec.stopReason
	}
	return "the goal was declared achieved"
}

// drainFinished reflects on every step that finished since the last call.
func (r *run) drainFinished(ctx workflow.Context) error {
	for len(r.exec.finished) > 0 {
		id := r.exec.finished[0]
		r.exec.finished = r.exec.finished[1:]
		if r.halted() || ctx.Err() != nil {
			continue
		}
		if err := r.reflectOn(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// awaitResume holds the run at a step boundary until it is resumed. The
// wait is a safe point to continue as new (continueDue), unless a budget
// or an open skip confirmation holds the run too.
func (r *run) awaitResume(ctx workflow.Context) error {
	r.st.Plan.Status = plan.PlanPaused
	r.publish(ctx)
	err := workflow.Await(ctx, func() bool { return !r.st.Paused || r.continueDue(ctx) })
	if err == nil && r.st.Paused {
		err = r.continueAsNew(ctx, func() bool {
			return !r.st.Paused || len(r.st.SkipConfirmations) > 0 || r.halted() || r.exec.budgetPaused
		})
		if err == nil {
			err = workflow.Await(ctx, func() bool { return !r.st.Paused })
		}
	}
	if err != nil {
		return err
	}
	r.st.Plan.Status = plan.PlanRunning
	r.publish(ctx)
	return nil
}

// launchReady starts ready steps up to the parallelism, skipping those
// whose skip condition holds. It reports whether it started or skipped
// anything.
func (r *run) launchReady(ctx workflow.Context) bool {
	if r.st.Paused || r.halted() || ctx.Err() != nil {
		return false
	}
	progressed := false
	for r.exec.running < r.req.Execution.Parallelism {
		id := r.nextReady()
		if id == "" {
			break
		}
		progressed = true
		if r.skipByCondition(ctx, id) {
			continue
		}
		r.launch(ctx, id)
	}
	return progressed
}

// nextReady returns the first ready step (fallback-only steps are never
// ready: they run in another's place) that no skip confirmation holds,
// or "".
func (r *run) nextReady() string {
	if ids := r.st.Plan.ReadyExcept(r.held()); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// skipByCondition evaluates the step's skip condition and skips the step
// when it holds. An evaluation error is recorded and the step runs.
func (r *run) skipByCondition(ctx workflow.Context, id string) bool {
	s := r.st.Plan.StepByID(id)
	if s == nil || s.SkipCondition == "" {
		return false
	}
	skip, err := plan.EvalCondition(s.SkipCondition, r.st.Plan)
	if err != nil {
		r.st.LastError = fmt.Sprintf("skip condition of step %s: %v (the step runs)", id, err)
		return false
	}
	if !skip {
		return false
	}
	reason := fmt.Sprintf("skip condition holds: %s", s.SkipCondition)
	if err := r.st.Plan.Skip([]string{id}, plan.Change{Actor: plan.ActorSystem, Reason: reason, At: workflow.Now(ctx), Within: r.limits()}); err != nil {
		r.st.LastError = fmt.Sprintf("skip step %s: %v (the step runs)", id, err)
		return false
	}
	r.publish(ctx)
	return true
}

// finishExecution settles the steps that never ran: fallbacks nobody
// needed are skipped, steps blocked by a dependency that did not complete
// are cancelled.
func (r *run) finishExecution(ctx workflow.Context) {
	if r.st.Plan == nil {
		return
	}
	r.skipSteps(ctx, r.st.Plan.UnusedFallbacks(), plan.ActorSystem, "fallback not needed")
	r.markCancelled(ctx, r.st.Plan.Blocked(), "not run: a step it depends on did not complete")
}

// outcome turns the end of execution into a status and an error.
func (r *run) outcome(err error) (signals.Status, error) {
	if err != nil {
		return signals.StatusFailed, err
	}
	if r.exec.stopReason != "" {
		return signals.StatusFailed, fmt.Errorf("%s", r.exec.stopReason)
	}
	if r.st.Plan == nil {
		return signals.StatusCompleted, nil
	}
	var failed []string
	for _, s := range r.st.Plan.Steps {
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
	if len(failed) > 0 && !r.exec.completedEarly {
		return signals.StatusFailed, fmt.Errorf("%d step(s) failed: %s", len(failed), strings.Join(failed, "; "))
	}
	return signals.StatusCompleted, nil
}
