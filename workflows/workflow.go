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

// run is one PlanMode run. Only the workflow's coroutines touch it;
// queries, validators and await conditions only read it.
type run struct {
	req        signals.StartRequest
	opts       runOptions
	workflowID string
	namespace  string
	task       plan.Task
	prompts    activities.Prompts
	// st is everything the run carries across continue-as-new, and the
	// only place those values live: a continuation gets st whole (see
	// checkpoint and restore), so a field added to signals.Checkpoint
	// cannot be forgotten on the way.
	st signals.Checkpoint

	// The rest is transient. A run continues as new only at a step
	// boundary of the executing phase, once no step runs, no handler or
	// signal is in progress, no webhook delivery is in flight, nothing
	// holds the run (pause, halt, open skip confirmation): every field
	// below is then at its resting value, or rebuilt by the continuation.
	// clarify is the clarification the run waits for, if any; it ends
	// before execution, where alone a run continues as new.
	clarify view.Clarification
	sel     selectionState
	exec    execState

	// signalsRunning counts signal handlers in progress, so that
	// continue-as-new waits for them as AllHandlersFinished does for
	// updates; signalsThisRun counts the signals this run received.
	signalsRunning int
	signalsThisRun int
	// workspaceWait is the busy workspace the run waits for, if any.
	workspaceWait *signals.WorkspaceWait
	channels      []workflow.ReceiveChannel
	published     published
	// goal is what PlanGoal holds, asked of the worker at the start of
	// every run (resolveGoalAttr).
	goal goalAttrState
	// notifying counts webhook deliveries not yet handed off: Notify
	// activities in flight, or PlanNotify children not yet started.
	notifying int
}

// selectionState says whether the run waits for a selection and whether a
// refine is running; the options themselves are in st.Options. Selection
// ends before execution, where alone a run continues as new.
type selectionState struct {
	waiting  bool
	refining bool
	// notified is the revision whose options a webhook announced.
	notified int
	// deadline is the selection deadline a continuation keeps waiting
	// for, in place of a full timeout, until a refine restarts it.
	deadline *time.Time
}

// execState is the executor's bookkeeping within one run. None of it is
// carried over: continue-as-new waits for running and finished to drain
// and for handlers (a rollback) to end, and is refused while budgetPaused,
// stopReason or completedEarly hold the run; started and stepsThisRun
// count for this run only.
type execState struct {
	started  bool
	running  int
	finished []string
	// answers holds the answers to open skip confirmations
	// (st.SkipConfirmations) until settle applies them; the run never
	// continues as new while a confirmation is open.
	answers map[string]skipAnswer
	// settled counts skip confirmations settled in their own coroutine,
	// so that the executor wakes up to launch the steps they held.
	settled int
	// budgetPaused is set while a budget overrun holds the run paused.
	budgetPaused   bool
	stopReason     string
	budgetExceeded string
	// deadline is the reason the run's deadline gave once it passed.
	deadline string
	// ending is set once the run is finishing: a deadline passing then
	// changes nothing.
	ending         bool
	completedEarly bool
	rollingBack    bool
	stepsThisRun   int
}

// skipAnswer is how a skip confirmation was answered: by a person, or by
// its deadline's default outcome.
type skipAnswer struct {
	approve bool
	byUser  bool
	by      string
	note    string
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
		st:         signals.Checkpoint{Goal: req.Goal, StartedAt: workflow.Now(ctx)},
		exec:       execState{answers: map[string]skipAnswer{}},
	}
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
		r.restore(*req.Checkpoint)
	}
	return r
}

// run registers the handlers and drives the phases to a Result.
func (r *run) run(ctx workflow.Context) (signals.Result, error) {
	if err := r.registerHandlers(ctx); err != nil {
		return signals.Result{}, fmt.Errorf("register handlers: %w", err)
	}
	r.resolveGoalAttr(ctx)
	work, err := r.watchDeadline(ctx)
	if err != nil {
		return signals.Result{}, err
	}
	r.countPlanStarted(ctx)
	if r.req.Checkpoint != nil && r.st.Plan != nil {
		return r.resumeAct(ctx, work)
	}
	if r.req.Checkpoint != nil && r.st.Phase == plan.PhaseAwaitingSelection {
		return r.resumeSelect(ctx, work)
	}
	if err := r.acquireWorkspace(work); err != nil {
		return r.leaseFailed(ctx, err)
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

// resumeAct continues execution in a run started by continue-as-new.
func (r *run) resumeAct(ctx, work workflow.Context) (signals.Result, error) {
	r.publish(ctx)
	return r.actAndFinish(ctx, work)
}

// actAndFinish executes the plan in work (ctx until the deadline) and
// ends the run in ctx: continue-as-new when the executor asks for it,
// otherwise a Result.
func (r *run) actAndFinish(ctx, work workflow.Context) (signals.Result, error) {
	err := r.act(work)
	var can *workflow.ContinueAsNewError
	if errors.As(err, &can) {
		return signals.Result{}, err
	}
	status, runErr := r.outcome(err)
	return r.finish(ctx, status, runErr)
}
