package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// attempt runs step id, retrying a result that is not a success up to the
// step's MaxRetries with its RetryDelay between tries (status retrying).
// A try whose files clashed with a step's beside it runs again at once,
// once, without counting as a retry (files.land). The step is looked up
// again after every wait: an edit may have replaced the plan meanwhile.
func (r *runner) attempt(ctx workflow.Context, id string) plan.StepResult {
	earlier := 0 // commands of the tries before this one
	retries, reran, rerunNext := 0, false, false
	var clashes []plan.Clash
	for n := 1; ; n++ {
		s := r.x.step(id)
		if s == nil {
			return plan.StepResult{Error: fmt.Sprintf("step %s was removed from the plan", id), Attempts: n - 1, Clashes: clashes}
		}
		step := *s
		if reason := r.checkHistory(ctx); reason != "" {
			return plan.StepResult{Error: reason, Attempts: n - 1, Clashes: clashes}
		}
		if err := r.files.begin(ctx, step, len(clashes) > 0); err != nil {
			return plan.StepResult{Error: fmt.Sprintf("wait for the plan's files: %v", err), Attempts: n - 1, Clashes: clashes}
		}
		if rerunNext {
			rerunNext = false
			r.markRunning(ctx, id)
			r.run.publish(ctx)
		}
		res := r.runOnce(ctx, step)
		clash := r.files.land(ctx, step, n, !reran, &res)
		if clash != nil {
			clashes = append(clashes, *clash)
		}
		res.Clashes = slices.Clone(clashes)
		res.Attempts = n
		res.CommandsRun += earlier
		earlier = res.CommandsRun
		// A refused call is final: another try would only ask again.
		refused := r.refused[id]
		delete(r.refused, id)
		if clash != nil && clash.Rerun && ctx.Err() == nil && !refused {
			reran, rerunNext = true, true
			r.retrying(ctx, id, n, fmt.Sprintf("attempt %d clashed with a step beside it in %s: it runs again on the "+
				"plan's files (its own kept in manifest %s)", n, strings.Join(clash.Paths, ", "), clash.Manifest))
			continue
		}
		if res.Success || ctx.Err() != nil || retries >= step.MaxRetries || refused {
			return res
		}
		retries++
		r.retrying(ctx, id, n, fmt.Sprintf("attempt %d of %d failed: %s", retries, step.MaxRetries+1, res.Error))
		if d := step.RetryDelay.D(); d > 0 {
			if err := workflow.Sleep(ctx, d); err != nil {
				return res
			}
		}
		r.markRunning(ctx, id)
		r.run.publish(ctx)
	}
}

// fallback runs the step's fallback in its place when it has a pending
// one. The result is the fallback's, with FallbackUsed naming it; the
// fallback step records its own result too. The step keeps status
// completed when the fallback succeeds: its note says it was rescued and
// from what (plan.Step.RescuedBy).
func (r *runner) fallback(ctx workflow.Context, id string, failed plan.StepResult) plan.StepResult {
	s := r.x.step(id)
	if s == nil || s.FallbackStepID == "" {
		return failed
	}
	fbID := s.FallbackStepID
	fb := r.x.step(fbID)
	if fb == nil || fb.Status != plan.StepPending {
		return failed
	}
	s.Note = fmt.Sprintf("failed after %d attempt(s): %s; fallback %s runs in its place", failed.Attempts, failed.Error, fbID)
	r.markRunning(ctx, fbID)
	r.run.publish(ctx)
	res := r.attempt(ctx, fbID)
	r.endStep(ctx, fbID, res)
	res = rescued(res, failed)
	res.FallbackUsed = fbID
	if !res.Success && res.Error == "" {
		res.Error = failed.Error
	}
	if s := r.x.step(id); s != nil {
		s.Note = rescueNote(fbID, res.Success, failed.Error)
	}
	return res
}

// rescued is the result of a step whose fallback ran in its place: the
// fallback's outcome and output, with the step's own work (its tries,
// commands, files and usage). The fallback's work is on the fallback step,
// so the plan's metrics count every command, file and iteration-limit
// warning once.
func rescued(fb, own plan.StepResult) plan.StepResult {
	res := fb
	res.Attempts = own.Attempts
	res.CommandsRun = own.CommandsRun
	res.FilesChanged = own.FilesChanged
	res.Usage = own.Usage
	res.Iterations = own.Iterations
	res.IterationLimitReached = own.IterationLimitReached
	return res
}

// rescueNote is the note of a step whose fallback ran in its place: it
// names the fallback and the error the step itself ended with.
func rescueNote(fbID string, rescued bool, cause string) string {
	if rescued {
		return fmt.Sprintf("rescued by fallback %s after: %s", fbID, cause)
	}
	return fmt.Sprintf("fallback %s failed too, after: %s", fbID, cause)
}

// endStep records a step's result and final status.
func (r *runner) endStep(ctx workflow.Context, id string, res plan.StepResult) {
	s := r.x.step(id)
	if s == nil {
		r.run.noteError(fmt.Sprintf("step %s ended after it was removed from the plan", id))
		return
	}
	now := workflow.Now(ctx)
	if s.StartedAt != nil && res.Duration == 0 {
		res.Duration = plan.Duration(now.Sub(*s.StartedAt))
	}
	s.Result = &res
	s.EndedAt = &now
	switch {
	case res.Success:
		s.Status = plan.StepCompleted
	case ctx.Err() != nil:
		s.Status = plan.StepCancelled
		s.Note = "cancelled while running"
		if d := r.run.deadline(); d != "" {
			s.Note = "cancelled while running: " + d
		}
	default:
		s.Status = plan.StepFailed
	}
	r.x.plan().UpdatedAt = now
}

// runOnce runs one try of a step according to its action. Activity errors
// (after the activity's own retries) become a failed result.
func (r *runner) runOnce(ctx workflow.Context, step plan.Step) plan.StepResult {
	start := workflow.Now(ctx)
	var res plan.StepResult
	switch step.Action {
	case plan.ActionLLM:
		res = r.runLLM(ctx, step)
	case plan.ActionTool:
		res = r.runToolStep(ctx, step)
	case plan.ActionAgent:
		res = r.runAgent(ctx, step)
	default:
		res = plan.StepResult{Error: fmt.Sprintf("unknown action %q", step.Action)}
	}
	if res.Duration == 0 {
		res.Duration = plan.Duration(workflow.Now(ctx).Sub(start))
	}
	return res
}

// runLLM runs an llm step: one completion.
func (r *runner) runLLM(ctx workflow.Context, step plan.Step) plan.StepResult {
	if reason := r.budget.beforeLLM(ctx); reason != "" {
		return plan.StepResult{Error: reason}
	}
	res, err := executeLLMStep(ctx, r.stepInput(step), r.stepLabel(step))
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("llm step: %v", err)}
	}
	r.run.addUsage(ctx, activities.PhaseExecute, res.Usage)
	return res
}
