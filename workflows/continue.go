package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// shouldContinueAsNew reports whether the history is long enough to start
// afresh: the server suggests it, or the history passed the run's limit.
// A run that has not finished a step yet never continues, so a standing
// suggestion cannot loop.
func (r *run) shouldContinueAsNew(ctx workflow.Context) bool {
	if r.exec.stepsThisRun == 0 || r.nextReady() == "" {
		return false
	}
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || (r.opts.historyLimit > 0 && info.GetCurrentHistoryLength() >= r.opts.historyLimit)
}

// maybeContinueAsNew continues as new at a step boundary when the history
// grew long, carrying the whole state in the request's Checkpoint. It
// first lets running update and signal handlers finish, drains the signal
// channels and lets webhook deliveries end, so no input or event is lost. It returns nil when the run goes
// on here, or the continue-as-new error.
func (r *run) maybeContinueAsNew(ctx workflow.Context) error {
	if !r.shouldContinueAsNew(ctx) {
		return nil
	}
	err := workflow.Await(ctx, func() bool {
		return workflow.AllHandlersFinished(ctx) && r.signalsRunning == 0 && r.channelsEmpty() && r.notifying == 0
	})
	if err != nil {
		return err
	}
	if r.exec.paused || len(r.exec.skips) > 0 || r.halted() {
		// A handler changed the picture while we waited: carry on here.
		return nil
	}
	next := r.req
	cp := r.checkpoint()
	next.Checkpoint = &cp
	workflow.GetLogger(ctx).Info("continuing as new", "runs", cp.Runs, "history", workflow.GetInfo(ctx).GetCurrentHistoryLength())
	return workflow.NewContinueAsNewError(ctx, signals.WorkflowType, next)
}

// channelsEmpty reports whether every signal channel is drained.
func (r *run) channelsEmpty() bool {
	for _, ch := range r.channels {
		if ch.Len() > 0 {
			return false
		}
	}
	return true
}

// checkpoint captures the run's state for its continuation.
func (r *run) checkpoint() signals.Checkpoint {
	cp := signals.Checkpoint{
		Runs:         r.runs + 1,
		StartedAt:    r.startedAt,
		Phase:        r.phase,
		Goal:         r.goal,
		Options:      r.optionsView(),
		Plan:         r.plan,
		SnapshotID:   r.snapshotID,
		Usage:        r.usage,
		Offline:      r.offline,
		LastError:    r.lastError,
		SkipSeq:      r.exec.skipSeq,
		Rejected:     r.rejected,
		Paused:       r.exec.paused,
		PauseReason:  r.exec.pauseReason,
		BudgetWaived: r.exec.budgetWaived,
		NotifySeq:    r.notifySeq,
		NoReceiver:   r.noReceiver,
	}
	for _, c := range r.exec.skips {
		cp.SkipConfirmations = append(cp.SkipConfirmations, c.SkipConfirmation)
	}
	return cp
}

// restore loads a checkpoint into a new run.
func (r *run) restore(cp signals.Checkpoint) {
	r.runs = cp.Runs
	r.startedAt = cp.StartedAt
	r.phase = cp.Phase
	r.goal = cp.Goal
	r.sel.revision = cp.Options.Revision
	r.sel.options = cp.Options.Options
	r.sel.comparison = cp.Options.Comparison
	r.sel.selectedID = cp.Options.SelectedID
	r.sel.dropped = cp.Options.Dropped
	r.sel.feedback = cp.Options.Feedback
	r.plan = cp.Plan
	r.snapshotID = cp.SnapshotID
	r.usage = cp.Usage
	r.offline = cp.Offline
	r.lastError = cp.LastError
	r.exec.skipSeq = cp.SkipSeq
	r.rejected = cp.Rejected
	r.exec.paused = cp.Paused
	r.exec.pauseReason = cp.PauseReason
	r.exec.budgetWaived = cp.BudgetWaived
	r.notifySeq = cp.NotifySeq
	r.noReceiver = cp.NoReceiver
	for _, c := range cp.SkipConfirmations {
		r.exec.skips = append(r.exec.skips, &confirmation{SkipConfirmation: c})
	}
}
