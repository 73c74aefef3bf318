package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// executor runs the selected plan: steps in dependency order, up to the
// parallelism at once, each with its tries, agent turns, tool calls and
// fallback; a reflection after each; skips and their confirmations
// (skips); the budgets and the history budget on the way. From prepare on
// it owns the plan (st.Plan) and the state below. None of it is carried
// over: continue-as-new happens at a step boundary with nothing running or
// finished, no handler in progress, and never while budgetPaused,
// stopReason or completedEarly hold the run; started, launched and
// stepsThisRun count for this run only.
type executor struct {
	r     *run
	skips *confirmations
	gate  *gate
	index planIndex
	files files

	started bool
	running int
	// finished are the steps that ended and wait for their reflection.
	finished []string
	// budgetPaused is set while a budget overrun holds the run paused.
	budgetPaused   bool
	stopReason     string
	budgetExceeded string
	// deadline is the reason the run's deadline gave once it passed.
	deadline       string
	completedEarly bool
	// launched counts the steps started, stepsThisRun those that ended.
	launched     int
	stepsThisRun int
	// refused marks the steps whose last call was refused, by the gate
	// or because the tools changed: a refusal is final, the step's
	// retries do not ask again.
	refused map[string]bool
}

// newExecutor returns r's executor, idle until act.
func newExecutor(r *run, g *gate) *executor {
	e := &executor{r: r, files: files{r: r}, gate: g, refused: map[string]bool{}}
	e.skips = &confirmations{e: e, answers: map[string]skipAnswer{}}
	return e
}

// planVersion is the plan's version, which an approval request is shown
// for.
func (e *executor) planVersion() int {
	return e.r.st.Plan.Version
}

// failPlan halts execution for reason, which the run fails with.
func (e *executor) failPlan(ctx workflow.Context, reason string) {
	e.stopReason = reason
	e.cancelPending(ctx, e.stopReason, false)
	e.r.publish(ctx)
}

// act runs the plan: steps in dependency order, up to parallelism at once,
// a reflection after each finished step, pauses and continue-as-new at step
// boundaries. It returns when no step can run any more, with the
// cancellation or the continue-as-new error if one ended it.
func (e *executor) act(ctx workflow.Context) error {
	r := e.r
	e.started = true
	r.setPhase(ctx, plan.PhaseExecuting)
	if err := e.skips.resolveRestored(ctx); err != nil {
		return err
	}
	for {
		if err := e.drainFinished(ctx); err != nil {
			return err
		}
		e.checkBudget(ctx)
		if e.running == 0 {
			if e.halted() {
				return nil
			}
			if r.ctl.paused() {
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
			if len(r.st.SkipConfirmations) == 0 {
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
	r := e.r
	if e.nextReady() == "" {
		return nil
	}
	if !r.chain.spent() && (e.stepsThisRun == 0 || !r.chain.suggested(ctx)) {
		return nil
	}
	return r.chain.continueAsNew(ctx, func() bool {
		return r.ctl.paused() || len(r.st.SkipConfirmations) > 0 || e.halted()
	})
}

// halted reports whether no new step may start: a budget stop or a
// reflection that declared the goal achieved.
func (e *executor) halted() bool {
	return e.stopReason != "" || e.completedEarly
}

// haltReason says why no new step may start.
func (e *executor) haltReason() string {
	if e.stopReason != "" {
		return e.stopReason
	}
	return "the goal was declared achieved"
}

// drainFinished reflects on every step that finished since the last call.
func (e *executor) drainFinished(ctx workflow.Context) error {
	for len(e.finished) > 0 {
		id := e.finished[0]
		e.finished = e.finished[1:]
		if e.halted() || ctx.Err() != nil {
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
	r := e.r
	r.st.Plan.Status = plan.PlanPaused
	r.publish(ctx)
	err := workflow.Await(ctx, func() bool { return !r.ctl.paused() || r.chain.due(ctx) })
	if err == nil && r.ctl.paused() {
		err = r.chain.continueAsNew(ctx, func() bool {
			return !r.ctl.paused() || len(r.st.SkipConfirmations) > 0 || e.halted() || e.budgetPaused
		})
		if err == nil {
			err = workflow.Await(ctx, func() bool { return !r.ctl.paused() })
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
func (e *executor) launchReady(ctx workflow.Context) bool {
	if e.r.ctl.paused() || e.halted() || ctx.Err() != nil {
		return false
	}
	progressed := false
	for e.running < e.r.req.Execution.Parallelism {
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

// nextReady returns the first ready step (fallback-only steps are never
// ready: they run in another's place) that no skip confirmation holds,
// or "".
func (e *executor) nextReady() string {
	return e.index.firstReady(e.r.st.Plan, e.skips.held())
}

// percent is the share of the plan's work done, 0 to 100 (view.Percent).
func (e *executor) percent() int {
	if e.r.st.Plan == nil {
		return 0
	}
	return e.index.percent(e.r.st.Plan)
}

// skipByCondition evaluates the step's skip condition and skips the step
// when it holds. An evaluation error is recorded and the step runs.
func (e *executor) skipByCondition(ctx workflow.Context, id string) bool {
	p := e.r.st.Plan
	s := e.step(id)
	if s == nil || s.SkipCondition == "" {
		return false
	}
	skip, err := plan.EvalCondition(s.SkipCondition, p)
	if err != nil {
		e.r.noteError(fmt.Sprintf("skip condition of step %s: %v (the step runs)", id, err))
		return false
	}
	if !skip {
		return false
	}
	reason := fmt.Sprintf("skip condition holds: %s", s.SkipCondition)
	if err := p.Skip([]string{id}, plan.Change{Actor: plan.ActorSystem, Reason: reason, At: workflow.Now(ctx), Within: e.r.lim}); err != nil {
		e.r.noteError(fmt.Sprintf("skip step %s: %v (the step runs)", id, err))
		return false
	}
	e.r.publish(ctx)
	return true
}

// finishExecution settles the steps that never ran: fallbacks nobody
// needed are skipped, steps blocked by a dependency that did not complete
// are cancelled.
func (e *executor) finishExecution(ctx workflow.Context) {
	p := e.r.st.Plan
	if p == nil {
		return
	}
	e.skipSteps(ctx, p.UnusedFallbacks(), plan.ActorSystem, "fallback not needed")
	e.markCancelled(ctx, p.Blocked(), "not run: a step it depends on did not complete")
}

// outcome turns the end of execution into a status and an error.
func (e *executor) outcome(err error) (signals.Status, error) {
	if err != nil {
		return signals.StatusFailed, err
	}
	if e.stopReason != "" {
		return signals.StatusFailed, fmt.Errorf("%s", e.stopReason)
	}
	if e.r.st.Plan == nil {
		return signals.StatusCompleted, nil
	}
	var failed []string
	for _, s := range e.r.st.Plan.Steps {
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
	if len(failed) > 0 && !e.completedEarly {
		return signals.StatusFailed, fmt.Errorf("%d step(s) failed: %s", len(failed), strings.Join(failed, "; "))
	}
	return signals.StatusCompleted, nil
}

// cancelPending marks every pending step cancelled with a note, and the
// running ones too when running is set (the run itself was cancelled).
func (e *executor) cancelPending(ctx workflow.Context, note string, running bool) {
	if e.r.st.Plan == nil {
		return
	}
	var ids []string
	for _, s := range e.r.st.Plan.Steps {
		active := s.Status == plan.StepRunning || s.Status == plan.StepRetrying
		if s.Status == plan.StepPending || (running && active) {
			ids = append(ids, s.ID)
		}
	}
	e.markCancelled(ctx, ids, note)
}

// markCancelled sets steps cancelled with a note. Cancelling is not a plan
// edit (no version, no history): it records why work did not happen.
func (e *executor) markCancelled(ctx workflow.Context, ids []string, note string) {
	if len(ids) == 0 {
		return
	}
	now := workflow.Now(ctx)
	for _, id := range ids {
		if s := e.step(id); s != nil {
			s.Status = plan.StepCancelled
			s.Note = note
			s.EndedAt = &now
		}
	}
	workflow.GetLogger(ctx).Info("steps cancelled", "steps", strings.Join(ids, ","), "reason", note)
}

// awaitIdle waits until no step runs: they acknowledged a cancellation.
func (e *executor) awaitIdle(ctx workflow.Context) {
	_ = workflow.Await(ctx, func() bool { return e.running == 0 })
}
