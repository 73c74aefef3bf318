package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// PlanMode runs one task through the plan mode cycle, and Temporal's
// status says how it ended. A plan that completes, or that clarification
// answers, returns its Result (Completed). A plan that fails returns a
// non-retryable application error of type signals.ErrorTypePlanFailed
// whose first detail is the Result (Failed). A plan cancelled, by Temporal
// cancellation or by a selection timeout with the cancel outcome, returns
// a CanceledError whose first detail is the Result (Canceled). An invalid
// request fails at once with signals.ErrorTypeInvalidRequest and no
// Result. signals.ResultFromError reads the Result back.
func PlanMode(ctx workflow.Context, req signals.StartRequest) (signals.Result, error) {
	return planMode(ctx, req)
}

// planMode is PlanMode with run settings, so tests can lower thresholds
// without package-level state.
func planMode(ctx workflow.Context, req signals.StartRequest, opts ...runSetting) (signals.Result, error) {
	if err := req.Validate(); err != nil {
		return signals.Result{}, invalidRequest(err)
	}
	if workflow.GetInfo(ctx).ContinuedExecutionRunID == "" {
		// A first run: a checkpoint only comes from continue-as-new, and
		// a field the request does not know is refused, not ignored.
		if req.Checkpoint != nil {
			return signals.Result{}, invalidRequest(errForeignCheckpoint)
		}
		if err := req.UnknownFields(); err != nil {
			return signals.Result{}, invalidRequest(err)
		}
	}
	r := newRun(ctx, req, opts...)
	ctx = withHeartbeatTimeout(ctx, r.req.Execution.HeartbeatTimeout.D())
	ctx = withPriorities(ctx, r.req)
	return r.run(ctx)
}

// errForeignCheckpoint refuses a checkpoint a run did not hand on. A
// checkpoint is the state a run hands its own continuation; restoring one
// a caller wrote would report steps done that never ran. Only a continued
// run (it has a ContinuedExecutionRunID) accepts one.
var errForeignCheckpoint = errors.New("checkpoint is only accepted from continue-as-new")

// newRun builds the run for req, restoring a checkpoint when the request
// continues an earlier run.
func newRun(ctx workflow.Context, req signals.StartRequest, opts ...runSetting) *run {
	o := runSettings{historyLimit: defaultHistoryLimit, budget: defaultHistoryBudget, signalLimit: signals.MaxSignalsPerRun}
	for _, fn := range opts {
		fn(&o)
	}
	req = req.WithDefaults()
	info := workflow.GetInfo(ctx)
	if req.Workspace == "" && req.Checkpoint == nil {
		// The plan's own folder under the root: never the root, which
		// holds every plan's folder.
		req.Workspace = plan.DefaultWorkspace(info.WorkflowExecution.ID)
	}
	r := &run{
		req:        req,
		opts:       o,
		workflowID: info.WorkflowExecution.ID,
		namespace:  info.Namespace,
		prompts:    activities.Prompts{System: req.SystemPrompt, Phases: req.PhasePrompts},
		lim:        plan.Limits{MaxSteps: req.Execution.MaxSteps, Tools: plan.BuiltinTools()},
		st:         signals.CycleState{Goal: req.Goal, StartedAt: workflow.Now(ctx)},
		prio:       newAnswerPriority(req, info),
	}
	wire(r)
	if req.Checkpoint != nil {
		// The state the previous run handed on, whole: each part takes
		// its own.
		r.restore(*req.Checkpoint)
		if r.st.Tools != nil {
			r.lim.Tools = r.recorded().names()
		}
	}
	return r
}

// wire gives r its parts, each with its state (empty until restore) and
// the interfaces to the rest it asks, and returns r.
func wire(r *run) *run {
	r.hooks = &notifier{about: r, url: r.req.Notify.WebhookURL, workflowID: r.workflowID}
	// A run's first batch carries its progress: a fresh run's first
	// workflow task records no event (it asks for its lease first), and a
	// reader of the log should find the run there from its first task on.
	r.log = &journal{hooks: r.hooks, about: r, due: true}
	r.ctl = &controls{run: r, log: r.log}
	r.ctl.in = inbox{st: &r.ctl.st, show: r, limit: r.opts.signalLimit}
	r.chain = &chain{historyLimit: r.opts.historyLimit, inputs: &r.ctl.in, hooks: r.hooks, log: r.log, heir: r}
	r.gate = newGate(signals.ApprovalState{}, r.req.Approval)
	r.exec = newExecutor(r.req, r.prompts, r.opts.budget,
		execDeps{run: r, log: r.log, pause: r.ctl, chain: r.chain, inputs: &r.ctl.in, gate: r.gate})
	r.gate.run, r.gate.plans, r.gate.log, r.gate.pause = r, r.exec, r.log, r.ctl
	r.clar = &clarification{timeout: r.req.Clarify.Timeout.D(), run: r, log: r.log}
	r.sel = &selection{opts: &r.st.Options, policy: r.req.Selection, ranking: r.req.Ranking, workflowID: r.workflowID,
		run: r, log: r.log, chain: r.chain}
	r.ctl.owners = owners{selection: r.sel, answers: r.clar, skips: r.exec.skips, plan: r.exec, approvals: r.gate, budget: r.exec.budget}
	r.lease = &workspaceLease{run: r, chain: r.chain, planID: r.workflowID, workspace: r.req.Workspace,
		waitBusy: r.req.OnBusy == signals.OnBusyWait}
	return r
}

// run registers the handlers, drives the phases (phases) and ends the
// run as they came out: a continue-as-new goes on in the continuation, a
// workspace refused fails the run as an invalid request with no Result,
// any other way ends with a Result (end).
func (r *run) run(ctx workflow.Context) (signals.Result, error) {
	if err := r.ctl.register(ctx); err != nil {
		return signals.Result{}, fmt.Errorf("register handlers: %w", err)
	}
	r.log.start(ctx)
	r.prio.start(ctx)
	if r.req.Fork != nil && r.req.Checkpoint == nil {
		if err := r.forkFrom(ctx); err != nil {
			return r.end(ctx, signals.StatusFailed, err)
		}
	}
	r.pub.resolveGoal(ctx, r.req.Goal)
	r.hooks.askReceiver(ctx)
	work, err := r.watchDeadline(ctx)
	if err != nil {
		return signals.Result{}, err
	}
	countPlanStarted(ctx, r.req.Checkpoint != nil)
	status, answer, err := r.phases(ctx, work)
	var can *workflow.ContinueAsNewError
	var refused *errWorkspaceRefused
	switch {
	case errors.As(err, &can):
		return signals.Result{}, err
	case errors.As(err, &refused):
		countPlanFinished(ctx, signals.StatusFailed)
		r.log.record(ctx, signals.EventEnded, nil, "workspace refused: "+refused.msg,
			activities.NotifyData{Status: signals.StatusFailed, Error: refused.msg})
		_ = workflow.Await(ctx, r.log.written)
		// The message says it all; the refusal is not repeated as a cause.
		return signals.Result{}, temporal.NewNonRetryableApplicationError(refused.msg, signals.ErrorTypeInvalidRequest, nil)
	case status == signals.StatusAnswered:
		return r.endAnswered(ctx, answer)
	}
	return r.end(ctx, status, err)
}

// phases drives the phases in work (ctx until the deadline), from where
// the run stands to the end of execution, and says how the run comes out
// of them: the status and the error it ends with, the answer when
// clarification answered the goal outright, or the continue-as-new error.
func (r *run) phases(ctx, work workflow.Context) (signals.Status, string, error) {
	if r.req.Checkpoint != nil && r.exec.plan() != nil {
		// A continuation of the executing phase goes on executing.
		r.publish(ctx)
		return r.act(work)
	}
	if r.req.Checkpoint != nil && r.st.Phase == plan.PhaseAwaitingSelection {
		r.sel.resume()
		return r.selectAndAct(work)
	}
	tools := r.recordingTools(work)
	if err := r.lease.acquire(work, r.snapshotFirst()); err != nil {
		var can *workflow.ContinueAsNewError
		var refused *errWorkspaceRefused
		if !errors.As(err, &can) && !errors.As(err, &refused) {
			err = fmt.Errorf("lease workspace: %w", err)
		}
		return signals.StatusFailed, "", err
	}
	if err := r.forkFiles(work); err != nil {
		return signals.StatusFailed, "", err
	}
	if err := r.recordTools(work, tools); err != nil {
		return signals.StatusFailed, "", err
	}
	if r.req.Plan != nil {
		if err := r.adoptExternal(work); err != nil {
			return signals.StatusFailed, "", err
		}
		if err := r.prepare(work); err != nil {
			return signals.StatusFailed, "", err
		}
		return r.act(work)
	}
	answer, err := r.clarifyPhase(work)
	if err != nil {
		return signals.StatusFailed, "", err
	}
	if answer != "" {
		return signals.StatusAnswered, answer, nil
	}
	if err := r.planPhase(work); err != nil {
		return signals.StatusFailed, "", err
	}
	return r.selectAndAct(work)
}

// selectAndAct waits for a selection, then executes the selected plan. A
// selection timeout with the cancel outcome cancels the run.
func (r *run) selectAndAct(work workflow.Context) (signals.Status, string, error) {
	if err := r.sel.await(work); err != nil {
		var c *selectionCancelled
		if errors.As(err, &c) {
			return signals.StatusCancelled, "", err
		}
		return signals.StatusFailed, "", err
	}
	if err := r.prepare(work); err != nil {
		return signals.StatusFailed, "", err
	}
	return r.act(work)
}

// act executes the plan and says how execution came out (executor.outcome),
// or returns the continue-as-new error the executor asked for.
func (r *run) act(work workflow.Context) (signals.Status, string, error) {
	err := r.exec.act(work)
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		return signals.StatusFailed, "", err
	}
	status, runErr := r.exec.outcome(err)
	return status, "", runErr
}
