package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// launch marks step id running and runs it in its own coroutine; the
// coroutine hands the id to the executor's loop through finished.
func (e *executor) launch(ctx workflow.Context, id string) {
	r := e.r
	e.markRunning(ctx, id)
	e.running++
	e.launched++
	r.st.MaxConcurrent = max(r.st.MaxConcurrent, e.running)
	r.publish(ctx)
	if s := e.step(id); s != nil {
		r.hooks.change(ctx, activities.EventStepStarted, fmt.Sprintf("step %d/%d started: %s", s.Number, len(r.st.Plan.Steps), s.Title), s)
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		res := e.attempt(ctx, id)
		if !res.Success && ctx.Err() == nil {
			res = e.fallback(ctx, id, res)
		}
		e.endStep(ctx, id, res)
		if res.Success && res.EndedPlan {
			e.completeEarly(ctx, plan.ActorSystem, fmt.Sprintf("step %s finished the plan: %s", id, res.Output))
		}
		if s := e.step(id); s != nil {
			countStep(ctx, *s)
			if s.Status != plan.StepCancelled {
				r.hooks.step(ctx, *s, len(r.st.Plan.Steps))
			}
		}
		e.running--
		e.stepsThisRun++
		e.finished = append(e.finished, id)
		r.publish(ctx)
	})
}

// markRunning sets a step running and stamps its start.
func (e *executor) markRunning(ctx workflow.Context, id string) {
	if s := e.step(id); s != nil {
		now := workflow.Now(ctx)
		s.Status = plan.StepRunning
		s.StartedAt = &now
	}
}

// attempt runs step id, retrying a result that is not a success up to the
// step's MaxRetries with its RetryDelay between tries (status retrying).
// A try whose files clashed with a step's beside it runs again at once,
// once, without counting as a retry (files.settle). The step is looked up
// again after every wait: an edit may have replaced the plan meanwhile.
func (e *executor) attempt(ctx workflow.Context, id string) plan.StepResult {
	earlier := 0 // commands of the tries before this one
	retries, reran, rerunNext := 0, false, false
	var clashes []plan.Clash
	for n := 1; ; n++ {
		s := e.step(id)
		if s == nil {
			return plan.StepResult{Error: fmt.Sprintf("step %s was removed from the plan", id), Attempts: n - 1, Clashes: clashes}
		}
		step := *s
		if reason := e.checkHistory(ctx); reason != "" {
			return plan.StepResult{Error: reason, Attempts: n - 1, Clashes: clashes}
		}
		if err := e.files.begin(ctx, step, len(clashes) > 0); err != nil {
			return plan.StepResult{Error: fmt.Sprintf("wait for the plan's files: %v", err), Attempts: n - 1, Clashes: clashes}
		}
		if rerunNext {
			rerunNext = false
			e.markRunning(ctx, id)
			e.r.publish(ctx)
		}
		res := e.runOnce(ctx, step)
		clash := e.files.settle(ctx, step, n, !reran, &res)
		if clash != nil {
			clashes = append(clashes, *clash)
		}
		res.Clashes = slices.Clone(clashes)
		res.Attempts = n
		res.CommandsRun += earlier
		earlier = res.CommandsRun
		// A refused call is final: another try would only ask again.
		refused := e.refused[id]
		delete(e.refused, id)
		if clash != nil && clash.Rerun && ctx.Err() == nil && !refused {
			reran, rerunNext = true, true
			e.retrying(ctx, id, fmt.Sprintf("attempt %d clashed with a step beside it in %s: it runs again on the "+
				"plan's files (its own kept in manifest %s)", n, strings.Join(clash.Paths, ", "), clash.Manifest))
			continue
		}
		if res.Success || ctx.Err() != nil || retries >= step.MaxRetries || refused {
			return res
		}
		retries++
		e.retrying(ctx, id, fmt.Sprintf("attempt %d of %d failed: %s", retries, step.MaxRetries+1, res.Error))
		if d := step.RetryDelay.D(); d > 0 {
			if err := workflow.Sleep(ctx, d); err != nil {
				return res
			}
		}
		e.markRunning(ctx, id)
		e.r.publish(ctx)
	}
}

// retrying shows step id waiting to try again, saying why.
func (e *executor) retrying(ctx workflow.Context, id, note string) {
	if s := e.step(id); s != nil {
		s.Status = plan.StepRetrying
		s.Note = note
		e.r.publish(ctx)
	}
}

// fallback runs the step's fallback in its place when it has a pending
// one. The result is the fallback's, with FallbackUsed naming it; the
// fallback step records its own result too. The step keeps status
// completed when the fallback succeeds: its note says it was rescued and
// from what (plan.Step.RescuedBy).
func (e *executor) fallback(ctx workflow.Context, id string, failed plan.StepResult) plan.StepResult {
	s := e.step(id)
	if s == nil || s.FallbackStepID == "" {
		return failed
	}
	fbID := s.FallbackStepID
	fb := e.step(fbID)
	if fb == nil || fb.Status != plan.StepPending {
		return failed
	}
	s.Note = fmt.Sprintf("failed after %d attempt(s): %s; fallback %s runs in its place", failed.Attempts, failed.Error, fbID)
	e.markRunning(ctx, fbID)
	e.r.publish(ctx)
	res := e.attempt(ctx, fbID)
	e.endStep(ctx, fbID, res)
	res = rescued(res, failed)
	res.FallbackUsed = fbID
	if !res.Success && res.Error == "" {
		res.Error = failed.Error
	}
	if s := e.step(id); s != nil {
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
func (e *executor) endStep(ctx workflow.Context, id string, res plan.StepResult) {
	s := e.step(id)
	if s == nil {
		e.r.noteError(fmt.Sprintf("step %s ended after it was removed from the plan", id))
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
		if e.deadline != "" {
			s.Note = "cancelled while running: " + e.deadline
		}
	default:
		s.Status = plan.StepFailed
	}
	e.r.st.Plan.UpdatedAt = now
}

// runOnce runs one try of a step according to its action. Activity errors
// (after the activity's own retries) become a failed result.
func (e *executor) runOnce(ctx workflow.Context, step plan.Step) plan.StepResult {
	start := workflow.Now(ctx)
	var res plan.StepResult
	switch step.Action {
	case plan.ActionLLM:
		res = e.runLLM(ctx, step)
	case plan.ActionTool:
		res = e.runToolStep(ctx, step)
	case plan.ActionAgent:
		res = e.runAgent(ctx, step)
	default:
		res = plan.StepResult{Error: fmt.Sprintf("unknown action %q", step.Action)}
	}
	if res.Duration == 0 {
		res.Duration = plan.Duration(workflow.Now(ctx).Sub(start))
	}
	return res
}

// stepLabel is the activity summary prefix of a step: "step 3/7 · Title".
func (e *executor) stepLabel(step plan.Step) string {
	return fmt.Sprintf("step %d/%d · %s", step.Number, len(e.r.st.Plan.Steps), step.Title)
}

// stepInput is what an llm step or an agent turn gets.
func (e *executor) stepInput(step plan.Step) activities.StepInput {
	r := e.r
	return activities.StepInput{
		PlanID:    r.st.Plan.ID,
		Context:   plan.BuildStepContext(r.st.Goal, r.st.Plan, step.ID),
		Workspace: r.req.Workspace,
		Prompts:   r.prompts,
	}
}

// runLLM runs an llm step: one completion.
func (e *executor) runLLM(ctx workflow.Context, step plan.Step) plan.StepResult {
	if reason := e.llmBudget(ctx); reason != "" {
		return plan.StepResult{Error: reason}
	}
	res, err := executeLLMStep(ctx, e.stepInput(step), e.stepLabel(step))
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("llm step: %v", err)}
	}
	e.r.addUsage(res.Usage)
	return res
}

// runToolStep runs a tool step: one call with the configured params as
// JSON arguments.
func (e *executor) runToolStep(ctx workflow.Context, step plan.Step) plan.StepResult {
	cfg := step.Config.Tool
	if cfg == nil {
		return plan.StepResult{Error: "tool step has no tool config"}
	}
	// json.Marshal sorts map keys: the same params give the same bytes.
	args, err := json.Marshal(cfg.Params) //workflowcheck:ignore
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("tool params: %v", err)}
	}
	if cfg.Params == nil {
		args = []byte("{}")
	}
	v := e.gate.check(ctx, step, cfg.Name, args)
	if v.refusal != "" {
		e.refused[step.ID] = true
		return plan.StepResult{Error: v.refusal}
	}
	if s := e.step(step.ID); s != nil && v.note != "" {
		s.Note = v.note
	}
	args = v.args
	if v.approved {
		e.files.reachedOutside(step.ID, cfg.Name+" (approved)")
	}
	out, err := e.callTool(ctx, step, activities.ToolCall{ID: step.ID, Name: cfg.Name, Arguments: string(args)},
		fmt.Sprintf("%s · tool %s", e.stepLabel(step), cfg.Name))
	if note, ok := e.endsStep(step, err); ok {
		return plan.StepResult{Error: note}
	}
	if err != nil {
		return plan.StepResult{Error: fmt.Sprintf("tool %s: %v", cfg.Name, err)}
	}
	res := plan.StepResult{
		Success:         out.Success,
		Output:          out.Output,
		OutputTruncated: out.OutputTruncated,
		OutputRef:       out.OutputRef,
		Error:           out.Error,
		FilesChanged:    out.FilesChanged,
		CommandsRun:     out.CommandsRun,
	}
	if out.Success && out.ExitPlan {
		endPlan(&res, out)
	}
	return res
}

// step returns the plan's step id, or nil.
func (e *executor) step(id string) *plan.Step {
	return e.index.step(e.r.st.Plan, id)
}
