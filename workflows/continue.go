package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// chain decides when the run continues as new and hands its state to the
// continuation: it reads the run and writes nothing of it.
type chain struct{ r *run }

// shouldContinueAsNew reports whether the run should start afresh at this
// step boundary: it received signals.MaxSignalsPerRun signals (the
// server refuses signals past its own limit), the server suggests it, the
// deployment's current build changed (upgradeDue), or the history passed
// the run's limit. A run that has not finished a step yet never continues
// for its history, so a standing suggestion cannot loop; a continuation
// counts its signals from zero.
func (c chain) shouldContinueAsNew(ctx workflow.Context) bool {
	r := c.r
	if r.exec.nextReady() == "" {
		return false
	}
	if r.ctl.signalCapReached() {
		return true
	}
	if r.exec.stepsThisRun == 0 {
		return false
	}
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || upgradeDue(ctx) ||
		(r.opts.historyLimit > 0 && info.GetCurrentHistoryLength() >= r.opts.historyLimit)
}

// due reports whether a run that waits (for its workspace, a
// selection or a resume) should continue as new: it received its share
// of signals, or its history reached the run's limit. A new run's history
// is short, so this cannot loop.
func (c chain) due(ctx workflow.Context) bool {
	r := c.r
	return r.ctl.signalCapReached() ||
		(r.opts.historyLimit > 0 && workflow.GetInfo(ctx).GetCurrentHistoryLength() >= r.opts.historyLimit)
}

// maybeContinueAsNew continues as new at a step boundary when
// shouldContinueAsNew says so, unless something holds the run (a pause, a
// skip confirmation, a halt). It returns nil when the run goes on here,
// or the continue-as-new error.
func (c chain) maybeContinueAsNew(ctx workflow.Context) error {
	r := c.r
	if !c.shouldContinueAsNew(ctx) {
		return nil
	}
	return c.continueAsNew(ctx, func() bool {
		return r.st.Paused || len(r.st.SkipConfirmations) > 0 || r.exec.halted()
	})
}

// continueAsNew continues as new carrying the whole state in the
// request's Checkpoint. It first lets running update and signal handlers
// finish, drains the signal channels and lets webhook deliveries end, so
// no input or event is lost; when stay then holds (a handler changed the
// picture while it waited) it returns nil and the run carries on here.
// Otherwise it returns the continue-as-new error.
func (c chain) continueAsNew(ctx workflow.Context, stay func() bool) error {
	r := c.r
	err := workflow.Await(ctx, func() bool {
		return workflow.AllHandlersFinished(ctx) && r.ctl.idle() && r.hooks.notifying == 0
	})
	if err != nil {
		return err
	}
	if stay() {
		return nil
	}
	next := r.req
	compactAll(r.st.Plan)
	cp := c.checkpoint()
	next.Checkpoint = &cp
	if r.st.Plan != nil {
		// The checkpoint holds the plan: a plan handed in with the
		// request is not carried a second time.
		next.Plan = nil
	}
	workflow.GetLogger(ctx).Info("continuing as new", "runs", cp.Runs, "phase", cp.Phase,
		"history", workflow.GetInfo(ctx).GetCurrentHistoryLength(), "signals", r.ctl.signalsThisRun)
	return continueAsNewError(ctx, next)
}

// checkpoint is the state the continuation starts from: the run's state
// whole, one more run in the chain.
func (c chain) checkpoint() signals.Checkpoint {
	cp := c.r.st
	cp.Runs++
	return cp
}
