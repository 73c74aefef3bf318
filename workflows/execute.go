package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// executor runs the selected plan: steps in dependency order, up to the
// parallelism at once, each run by its runner (tries, agent turns, tool
// calls, fallback) and reflected on when it ends; skips and their
// confirmations (skips), the budgets (budget) and the plan's files (files)
// on the way. It owns the plan from the moment the cycle hands it over
// (take), with the rest of signals.ExecutionState, which its pieces share,
// and why execution stopped (stop). It asks the run for what is the
// cycle's (run), the controls for the pause, the chain to continue as new
// and the gate to decide tool calls. Nothing else here is carried over:
// continue-as-new happens at a step boundary with nothing running or
// finished, no handler in progress, and never while a halt, a budget
// pause or a skip confirmation holds the run; started, launched and
// stepsThisRun count for this run only.
type executor struct {
	st     signals.ExecutionState
	run    execRun
	log    eventLog
	pause  pauser
	chain  stepChain
	inputs rejecter
	gate   *gate
	skips  *confirmations
	files  *files
	budget *budget
	steps  *runner
	index  planIndex
	// stop says why no step starts any more; zero while they do.
	stop halt
	// ex, workspace and prompts are the request's.
	ex        signals.ExecutionPolicy
	workspace string
	prompts   activities.Prompts

	started bool
	running int
	// finished are the steps that ended and wait for their reflection.
	finished []string
	// launched counts the steps started, stepsThisRun those that ended.
	launched     int
	stepsThisRun int
	// rollingBack is set while a rollback update runs.
	rollingBack bool
}

// execRun is what the executor asks of the run around it: to report
// (publish, usage, errors) and to move to executing, and what of the
// cycle's state it reads: the phase, the goal, the usage so far, the
// recorded tools, the limits plans keep, whether the run is ending, the
// snapshot before execution and the reason the deadline gave, if it
// passed.
type execRun interface {
	reporter
	setPhase(ctx workflow.Context, phase plan.Phase)
	phase() plan.Phase
	goal() string
	usage() plan.Usage
	recorded() recorded
	limits() plan.Limits
	ending() bool
	snapshotID() string
	deadline() string
}

// stepChain is the chain as the executor asks it at a step boundary.
type stepChain interface {
	continuer
	spent() bool
	suggested(ctx workflow.Context) bool
}

// rejecter keeps an input refused (the controls' inbox): for the
// executor, a reflection's decision that could not apply.
type rejecter interface {
	record(ctx workflow.Context, rej signals.Rejection)
}

// execDeps are the rest of the run as the executor and its pieces ask it.
type execDeps struct {
	run    execRun
	log    eventLog
	pause  pauser
	chain  stepChain
	inputs rejecter
	gate   *gate
}

// newExecutor returns the executor of req's plan, idle until act.
func newExecutor(req signals.StartRequest, prompts activities.Prompts, history historyBudget, d execDeps) *executor {
	e := &executor{run: d.run, log: d.log, pause: d.pause, chain: d.chain, inputs: d.inputs, gate: d.gate,
		ex: req.Execution, workspace: req.Workspace, prompts: prompts}
	e.files = &files{st: &e.st, run: d.run, workspace: req.Workspace}
	e.budget = &budget{st: &e.st, req: req.Budget, x: e, run: d.run, pause: d.pause, log: d.log}
	e.skips = &confirmations{st: &e.st, x: e, run: d.run, log: d.log, ex: req.Execution, answers: map[string]skipAnswer{}}
	e.steps = &runner{x: e, run: d.run, log: d.log, gate: d.gate, files: e.files, budget: e.budget, ex: req.Execution,
		workspace: req.Workspace, prompts: prompts, history: history, refused: map[string]bool{}}
	return e
}

// take hands the plan over to the executor: from here on it is the
// executor's.
func (e *executor) take(p *plan.Plan) {
	e.st.Plan = p
}

// plan is the plan, nil before the cycle handed it over.
func (e *executor) plan() *plan.Plan {
	return e.st.Plan
}

// step returns the plan's step id, or nil.
func (e *executor) step(id string) *plan.Step {
	return e.index.step(e.st.Plan, id)
}

// planVersion is the plan's version, which an approval request is shown
// for.
func (e *executor) planVersion() int {
	return e.st.Plan.Version
}

// filesRef names the plan's files as the activities take them.
func (e *executor) filesRef() activities.FilesRef {
	return activities.FilesRef{Manifest: e.st.Manifest}
}

// useFiles makes manifest the plan's files: the cycle's snapshot before
// execution, or a fork's parent's files.
func (e *executor) useFiles(manifest string) {
	e.st.Manifest = manifest
}

// percent is the share of the plan's work done, 0 to 100 (view.Percent).
func (e *executor) percent() int {
	if e.st.Plan == nil {
		return 0
	}
	return e.index.percent(e.st.Plan)
}

// nextReady returns the first ready step (fallback-only steps are never
// ready: they run in another's place) that no skip confirmation holds,
// or "".
func (e *executor) nextReady() string {
	return e.index.firstReady(e.st.Plan, e.skips.held())
}

// stopped is why execution stopped, zero while it goes on.
func (e *executor) stopped() halt {
	return e.stop
}

// halt stops execution starting steps, for h (see halt.then for which
// reason stands when there are several). Once the goal is declared
// achieved every pending step is skipped on h.by's behalf, and the caller
// publishes; any other halt cancels the pending steps with its reason and
// publishes. Running steps finish either way.
func (e *executor) halt(ctx workflow.Context, h halt) {
	e.stop = e.stop.then(h)
	if h.kind == haltGoal {
		var ids []string
		for _, s := range e.st.Plan.Steps {
			if s.Status == plan.StepPending {
				ids = append(ids, s.ID)
			}
		}
		if len(ids) == 0 {
			return
		}
		change := plan.Change{Actor: h.by, Reason: h.reason, At: workflow.Now(ctx), Within: e.run.limits()}
		if err := e.st.Plan.Skip(ids, change); err != nil {
			e.run.noteError(fmt.Sprintf("complete: skip remaining steps: %v", err))
			return
		}
		e.skipped(ctx, ids, h.by, h.reason)
		return
	}
	e.cancelPending(ctx, h.reason, false)
	e.run.publish(ctx)
}

// failPlan halts execution for reason, which the run fails with: nobody
// approved a call in time.
func (e *executor) failPlan(ctx workflow.Context, reason string) {
	e.halt(ctx, halt{kind: haltApproval, reason: reason})
}

// cancelPending marks every pending step cancelled with a note, and the
// running ones too when running is set (the run itself was cancelled).
func (e *executor) cancelPending(ctx workflow.Context, note string, running bool) {
	if e.st.Plan == nil {
		return
	}
	var ids []string
	for _, s := range e.st.Plan.Steps {
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

// applySkip skips ids and publishes the change.
func (e *executor) applySkip(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	e.skipSteps(ctx, ids, actor, reason)
	e.run.publish(ctx)
}

// skipSteps skips ids on actor's behalf, recording a failure as the last
// error. It does not publish: the run's end settles steps this way and
// publishes once.
func (e *executor) skipSteps(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	if err := e.st.Plan.Skip(ids, plan.Change{Actor: actor, Reason: reason, At: workflow.Now(ctx), Within: e.run.limits()}); err != nil {
		e.run.noteError(fmt.Sprintf("skip %s: %v", strings.Join(ids, ", "), err))
		return
	}
	e.skipped(ctx, ids, actor, reason)
}
