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
// channels and lets webhook deliveries end, so no input or event is lost.
// It returns nil when the run goes on here, or the continue-as-new error.
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
	if r.st.Paused || len(r.st.SkipConfirmations) > 0 || r.halted() {
		// A handler changed the picture while we waited: carry on here.
		return nil
	}
	next := r.req
	r.compactAll()
	cp := r.checkpoint()
	next.Checkpoint = &cp
	if r.feat.boundedHistory {
		// The checkpoint holds the plan: a plan handed in with the
		// request is not carried a second time.
		next.Plan = nil
	}
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

// checkpoint is the state the continuation starts from: the run's state
// whole, one more run in the chain.
func (r *run) checkpoint() signals.Checkpoint {
	cp := r.st
	cp.Runs++
	return cp
}

// restore makes a checkpoint the new run's state.
func (r *run) restore(cp signals.Checkpoint) {
	r.st = cp
}
