package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// act runs the plan: steps in dependency order, up to parallelism at once,
// a reflection after each finished step, pauses and continue-as-new at step
// boundaries. It returns when no step can run any more, with the
// cancellation or the continue-as-new error if one ended it.
func (e *executor) act(ctx workflow.Context) error {
	e.started = true
	e.run.setPhase(ctx, plan.PhaseExecuting)
	if err := e.skips.resolveRestored(ctx); err != nil {
		return err
	}
	for {
		if err := e.drainFinished(ctx); err != nil {
			return err
		}
		e.budget.check(ctx)
		if e.running == 0 {
			if e.stop.set() {
				return nil
			}
			if e.pause.paused() {
				if err := e.awaitResume(ctx); err != nil {
					return err
				}
				continue
			}
			if err := e.boundary(ctx); err != nil {
				return err
			}
		}
		settled := e.skips.settled
		progressed := e.launchReady(ctx)
		if e.running == 0 && len(e.finished) == 0 {
			if progressed {
				continue
			}
			if len(e.st.SkipConfirmations) == 0 {
				return nil
			}
		}
		// A step ends, or a skip confirmation is settled, freeing the
		// steps it held.
		if err := workflow.Await(ctx, func() bool { return len(e.finished) > 0 || e.skips.settled != settled }); err != nil {
			return err
		}
	}
}

// boundary continues as new at a step boundary when the chain says so: a
// step is ready to start, and the run received its share of signals or,
// once it finished a step here, its history asks for it (a run that has
// not finished a step yet never continues for its history, so a standing
// suggestion cannot loop). Something that holds the run (a pause, a skip
// confirmation, a halt) keeps it here. It returns nil when the run goes on
// here, or the continue-as-new error.
func (e *executor) boundary(ctx workflow.Context) error {
	if e.nextReady() == "" {
		return nil
	}
	if !e.chain.spent() && (e.stepsThisRun == 0 || !e.chain.suggested(ctx)) {
		return nil
	}
	return e.chain.continueAsNew(ctx, func() bool {
		return e.pause.paused() || len(e.st.SkipConfirmations) > 0 || e.stop.set()
	})
}

// drainFinished reflects on every step that finished since the last call.
func (e *executor) drainFinished(ctx workflow.Context) error {
	for len(e.finished) > 0 {
		id := e.finished[0]
		e.finished = e.finished[1:]
		if e.stop.set() || ctx.Err() != nil {
			continue
		}
		if err := e.reflectOn(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// awaitResume holds the run at a step boundary until it is resumed. The
// wait is a safe point to continue as new (chain.due), unless a budget
// or an open skip confirmation holds the run too.
func (e *executor) awaitResume(ctx workflow.Context) error {
	e.st.Plan.Status = plan.PlanPaused
	e.run.publish(ctx)
	err := workflow.Await(ctx, func() bool { return !e.pause.paused() || e.chain.due(ctx) })
	if err == nil && e.pause.paused() {
		err = e.chain.continueAsNew(ctx, func() bool {
			return !e.pause.paused() || len(e.st.SkipConfirmations) > 0 || e.stop.set() || e.budget.held
		})
		if err == nil {
			err = workflow.Await(ctx, func() bool { return !e.pause.paused() })
		}
	}
	if err != nil {
		return err
	}
	e.st.Plan.Status = plan.PlanRunning
	e.run.publish(ctx)
	return nil
}

// launchReady starts ready steps up to the parallelism, skipping those
// whose skip condition holds. It reports whether it started or skipped
// anything.
func (e *executor) launchReady(ctx workflow.Context) bool {
	if e.pause.paused() || e.stop.set() || ctx.Err() != nil {
		return false
	}
	progressed := false
	for e.running < e.ex.Parallelism {
		id := e.nextReady()
		if id == "" {
			break
		}
		progressed = true
		if e.skipByCondition(ctx, id) {
			continue
		}
		e.launch(ctx, id)
	}
	return progressed
}

// skipByCondition evaluates the step's skip condition and skips the step
// when it holds. An evaluation error is recorded and the step runs.
func (e *executor) skipByCondition(ctx workflow.Context, id string) bool {
	p := e.st.Plan
	s := e.step(id)
	if s == nil || s.SkipCondition == "" {
		return false
	}
	skip, err := plan.EvalCondition(s.SkipCondition, p)
	if err != nil {
		e.run.noteError(fmt.Sprintf("skip condition of step %s: %v (the step runs)", id, err))
		return false
	}
	if !skip {
		return false
	}
	reason := fmt.Sprintf("skip condition holds: %s", s.SkipCondition)
	if err := p.Skip([]string{id}, plan.Change{Actor: plan.ActorSystem, Reason: reason, At: workflow.Now(ctx), Within: e.run.limits()}); err != nil {
		e.run.noteError(fmt.Sprintf("skip step %s: %v (the step runs)", id, err))
		return false
	}
	e.skipped(ctx, []string{id}, plan.ActorSystem, reason)
	e.run.publish(ctx)
	return true
}

// stepEnded records how step s ended: completed, skipped or failed (a
// cancelled step was cut short by the run's end, which the log tells).
func (e *executor) stepEnded(ctx workflow.Context, s plan.Step) {
	typ := signals.EventStepCompleted
	msg := fmt.Sprintf("step %d/%d %s: %s", s.Number, len(e.st.Plan.Steps), s.Status, s.Title)
	d := stepData{Percent: e.percent()}
	if s.Result != nil {
		d.Attempt = s.Result.Attempts
	}
	switch s.Status {
	case plan.StepCompleted:
	case plan.StepSkipped:
		typ = signals.EventStepSkipped
	default:
		typ = signals.EventStepFailed
		if s.Result != nil && s.Result.Error != "" {
			msg += ": " + s.Result.Error
			d.Error = s.Result.Error
		}
	}
	e.log.record(ctx, typ, &s, msg, d)
}

// skipped records that actor skipped the steps of ids that are skipped
// now, and why.
func (e *executor) skipped(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	for _, id := range ids {
		if s := e.step(id); s != nil && s.Status == plan.StepSkipped {
			e.log.record(ctx, signals.EventStepSkipped, s, fmt.Sprintf("step %d skipped by %s: %s", s.Number, actor, reason),
				byReason{By: string(actor), Reason: reason})
		}
	}
}

// launch marks step id running and has the runner run it in its own
// coroutine, which hands the id to the loop through finished. A step that
// asks to end the plan (finish_plan) halts execution: the goal is
// achieved.
func (e *executor) launch(ctx workflow.Context, id string) {
	e.steps.markRunning(ctx, id)
	e.running++
	e.launched++
	e.st.MaxConcurrent = max(e.st.MaxConcurrent, e.running)
	e.run.publish(ctx)
	if s := e.step(id); s != nil {
		e.log.record(ctx, signals.EventStepStarted, s, fmt.Sprintf("step %d/%d started: %s", s.Number, len(e.st.Plan.Steps), s.Title),
			stepData{Percent: e.percent()})
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		res := e.steps.attempt(ctx, id)
		if !res.Success && ctx.Err() == nil {
			res = e.steps.fallback(ctx, id, res)
		}
		e.steps.endStep(ctx, id, res)
		if res.Success && res.EndedPlan {
			e.halt(ctx, halt{kind: haltGoal, by: plan.ActorSystem, reason: fmt.Sprintf("step %s finished the plan: %s", id, res.Output)})
		}
		if s := e.step(id); s != nil {
			countStep(ctx, *s)
			if s.Status != plan.StepCancelled {
				e.stepEnded(ctx, *s)
			}
		}
		e.running--
		e.stepsThisRun++
		e.finished = append(e.finished, id)
		e.run.publish(ctx)
	})
}
