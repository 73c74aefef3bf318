package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
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

// planMode is PlanMode with run options, so tests can lower thresholds
// without package-level state.
func planMode(ctx workflow.Context, req signals.StartRequest, opts ...runOption) (signals.Result, error) {
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

// invalidRequest fails the workflow for err, without retries.
func invalidRequest(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), signals.ErrorTypeInvalidRequest, err)
}

// errForeignCheckpoint refuses a checkpoint a run did not hand on. A
// checkpoint is the state a run hands its own continuation; restoring one
// a caller wrote would report steps done that never ran. Only a continued
// run (it has a ContinuedExecutionRunID) accepts one.
var errForeignCheckpoint = errors.New("checkpoint is only accepted from continue-as-new")

// defaultHistoryLimit is the history length past which a run continues as
// new at the next step boundary, whatever the server suggests.
const defaultHistoryLimit = 10000

// runOptions tune a run; the zero value is not used, see newRun.
type runOptions struct {
	historyLimit int
	budget       historyBudget
	// signalLimit is how many signals a run receives before it continues
	// as new at its next safe point.
	signalLimit int
}

// runOption changes one run option.
type runOption func(*runOptions)

// withHistoryLimit sets the history length that triggers continue-as-new.
func withHistoryLimit(n int) runOption {
	return func(o *runOptions) { o.historyLimit = n }
}

// withSignalLimit sets how many signals make a run continue as new.
func withSignalLimit(n int) runOption {
	return func(o *runOptions) { o.signalLimit = n }
}

// withHistoryBudget sets the history length and size (bytes) past which a
// step stops, see historyBudget.
func withHistoryBudget(events, bytes int) runOption {
	return func(o *runOptions) { o.budget = historyBudget{events: events, bytes: bytes} }
}

// run is one PlanMode run, and the cycle that drives it: the phases in
// the order they run (clarify, options, select, execute, summarize, end)
// and continue-as-new. Its parts work beside it, each owning what it
// writes: the workspace lease (lease), the executor (exec) that runs the
// selected plan, the controls (ctl) that take the signals, updates and
// queries, the notifier (hooks) that sends the webhooks, the chain that
// decides when the run continues as new and what it hands on, and the
// publisher (pub) that shows the run in search attributes and current
// details.
// Only the workflow's coroutines write; queries, validators and await
// conditions only read.
type run struct {
	req        signals.StartRequest
	opts       runOptions
	workflowID string
	namespace  string
	task       plan.Task
	prompts    activities.Prompts
	// lim are the limits every validation and plan change keeps: the
	// request's maxSteps and the built-in tools.
	lim plan.Limits
	// st is everything the run carries across continue-as-new, and the
	// only place those values live: a continuation gets st whole (see
	// checkpoint and newRun), so a field added to signals.Checkpoint
	// cannot be forgotten on the way. Its fields are written by their
	// owners: the executor writes Plan once prepare has handed it over,
	// MaxConcurrent and BudgetWaived, its skip confirmations
	// SkipConfirmations and SkipSeq; the lease Lease; the notifier
	// NotifySeq and NoReceiver; the controls Rejected; the cycle the
	// rest, Usage and LastError for everyone (addUsage, noteError).
	st signals.Checkpoint

	// The rest is transient. A run continues as new only at a step
	// boundary of the executing phase or while it waits (for its
	// workspace, a selection, a resume), once no handler or signal is in
	// progress and no webhook delivery is in flight: every field below
	// is then at its resting value, or rebuilt by the continuation.
	clarify view.Clarification
	sel     selectionState
	// ending is set once the run is finishing: a deadline passing then
	// changes nothing.
	ending bool

	lease *workspaceLease
	gate  *gate
	exec  *executor
	ctl   *controls
	hooks *notifier
	chain *chain
	pub   publisher
}

// selectionState says whether the run waits for a selection and whether a
// refine is running; the options themselves are in st.Options.
type selectionState struct {
	waiting  bool
	refining bool
	// notified is the revision whose options a webhook announced.
	notified int
	// deadline is the selection deadline a continuation keeps waiting
	// for, in place of a full timeout, until a refine restarts it.
	deadline *time.Time
}

// newRun builds the run for req, restoring a checkpoint when the request
// continues an earlier run.
func newRun(ctx workflow.Context, req signals.StartRequest, opts ...runOption) *run {
	o := runOptions{historyLimit: defaultHistoryLimit, budget: defaultHistoryBudget, signalLimit: signals.MaxSignalsPerRun}
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
		st:         signals.Checkpoint{CycleState: signals.CycleState{Goal: req.Goal, StartedAt: workflow.Now(ctx)}},
	}
	wire(r)
	r.task = plan.Task{
		ID:           r.workflowID,
		Goal:         req.Goal,
		Requirements: req.Requirements,
		Constraints:  req.Constraints,
		Priority:     req.Priority,
		Context:      plan.TaskContext{WorkspaceRoot: req.Workspace},
		History:      slices.Clone(req.History),
	}
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

// wire gives r its parts and returns it.
func wire(r *run) *run {
	r.hooks = &notifier{about: r, url: r.req.Notify.WebhookURL, workflowID: r.workflowID}
	r.gate = newGate(signals.ApprovalState{}, r.req.Approval)
	r.exec = newExecutor(r, r.gate)
	r.ctl = &controls{r: r}
	r.ctl.in = inbox{st: &r.ctl.st, show: r, limit: r.opts.signalLimit}
	r.gate.run, r.gate.plans, r.gate.hooks, r.gate.pause = r, r.exec, r.hooks, r.ctl
	r.chain = &chain{historyLimit: r.opts.historyLimit, inputs: &r.ctl.in, hooks: r.hooks, heir: r}
	r.lease = &workspaceLease{run: r, chain: r.chain, planID: r.workflowID, workspace: r.req.Workspace,
		waitBusy: r.req.OnBusy == signals.OnBusyWait}
	return r
}

// run registers the handlers and drives the phases to a Result.
func (r *run) run(ctx workflow.Context) (signals.Result, error) {
	if err := r.ctl.register(ctx); err != nil {
		return signals.Result{}, fmt.Errorf("register handlers: %w", err)
	}
	if r.req.Fork != nil && r.req.Checkpoint == nil {
		if err := r.forkFrom(ctx); err != nil {
			return r.finish(ctx, signals.StatusFailed, err)
		}
	}
	r.pub.resolveGoalAttr(ctx, r.req.Goal)
	r.hooks.askReceiver(ctx)
	work, err := r.watchDeadline(ctx)
	if err != nil {
		return signals.Result{}, err
	}
	countPlanStarted(ctx, r.req.Checkpoint != nil)
	if r.req.Checkpoint != nil && r.st.Plan != nil {
		// A continuation of the executing phase goes on executing.
		r.publish(ctx)
		return r.actAndFinish(ctx, work)
	}
	if r.req.Checkpoint != nil && r.st.Phase == plan.PhaseAwaitingSelection {
		return r.resumeSelect(ctx, work)
	}
	tools := r.recordingTools(work)
	if err := r.lease.acquire(work, r.snapshotFirst()); err != nil {
		return r.leaseFailed(ctx, err)
	}
	if err := r.forkFiles(work); err != nil {
		return r.finish(ctx, signals.StatusFailed, err)
	}
	if err := r.recordTools(work, tools); err != nil {
		return r.finish(ctx, signals.StatusFailed, err)
	}
	if r.req.Plan != nil {
		return r.runExternal(ctx, work)
	}
	answer, err := r.clarifyPhase(work)
	if err != nil {
		return r.finish(ctx, signals.StatusFailed, err)
	}
	if answer != "" {
		return r.answered(ctx, answer), nil
	}
	if err := r.planPhase(work); err != nil {
		return r.finish(ctx, signals.StatusFailed, err)
	}
	return r.selectAndAct(ctx, work)
}

// selectAndAct waits for a selection, then executes the selected plan.
func (r *run) selectAndAct(ctx, work workflow.Context) (signals.Result, error) {
	if err := r.selectPhase(work); err != nil {
		var c *selectionCancelled
		var can *workflow.ContinueAsNewError
		switch {
		case errors.As(err, &can):
			return signals.Result{}, err
		case errors.As(err, &c):
			return r.finish(ctx, signals.StatusCancelled, err)
		}
		return r.finish(ctx, signals.StatusFailed, err)
	}
	if err := r.prepare(work); err != nil {
		return r.finish(ctx, signals.StatusFailed, err)
	}
	return r.actAndFinish(ctx, work)
}

// resumeSelect goes on waiting for a selection in a run started by
// continue-as-new: the options were announced, and the deadline stays.
func (r *run) resumeSelect(ctx, work workflow.Context) (signals.Result, error) {
	r.sel.notified = r.st.Options.Revision
	r.sel.deadline = r.st.Options.SelectionTimeout
	return r.selectAndAct(ctx, work)
}

// leaseFailed ends a run whose workspace could not be leased: a refused
// workspace is an invalid request (no Result), a continue-as-new while
// waiting goes on, anything else fails the run (or cancels it).
func (r *run) leaseFailed(ctx workflow.Context, err error) (signals.Result, error) {
	var can *workflow.ContinueAsNewError
	var refused *errWorkspaceRefused
	switch {
	case errors.As(err, &can):
		return signals.Result{}, err
	case errors.As(err, &refused):
		countPlanFinished(ctx, signals.StatusFailed)
		// The message says it all; the refusal is not repeated as a cause.
		return signals.Result{}, temporal.NewNonRetryableApplicationError(refused.msg, signals.ErrorTypeInvalidRequest, nil)
	}
	return r.finish(ctx, signals.StatusFailed, fmt.Errorf("lease workspace: %w", err))
}

// actAndFinish executes the plan in work (ctx until the deadline) and
// ends the run in ctx: continue-as-new when the executor asks for it,
// otherwise a Result.
func (r *run) actAndFinish(ctx, work workflow.Context) (signals.Result, error) {
	err := r.exec.act(work)
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		return signals.Result{}, err
	}
	status, runErr := r.exec.outcome(err)
	return r.finish(ctx, status, runErr)
}
