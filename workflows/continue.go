package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// chain decides when the run continues as new and hands the run's state
// to the continuation. It reads what it needs through small interfaces
// and writes nothing.
type chain struct {
	// historyLimit is the history length past which a run continues as
	// new at its next safe point (runSettings.historyLimit).
	historyLimit int
	inputs       inputLoad
	hooks        interface{ delivering() bool }
	log          interface{ written() bool }
	heir         heir
}

// inputLoad is what the chain reads of the run's inputs (the controls'
// inbox): whether this run received its share of signals, whether any is
// being served or waits, and how many it received.
type inputLoad interface {
	spent() bool
	idle() bool
	received() int
}

// heir hands the run on: the request its continuation starts from, with
// the run's whole state in its checkpoint.
type heir interface {
	handOn() signals.StartRequest
}

// due reports whether a run that waits (for its workspace, a selection
// or a resume) should continue as new: it received its share of signals,
// or its history reached the run's limit. A new run's history is short,
// so this cannot loop.
func (c *chain) due(ctx workflow.Context) bool {
	return c.inputs.spent() || c.historyPassed(ctx)
}

// spent reports whether the run received its share of signals
// (signals.MaxSignalsPerRun: the server refuses signals past its own
// limit); a continuation counts its signals from zero.
func (c *chain) spent() bool {
	return c.inputs.spent()
}

// suggested reports whether a run at a step boundary that finished a
// step should continue as new for its history: the server suggests it,
// the deployment's current build changed (upgradeDue), or the history
// passed the run's limit.
func (c *chain) suggested(ctx workflow.Context) bool {
	return workflow.GetInfo(ctx).GetContinueAsNewSuggested() || upgradeDue(ctx) || c.historyPassed(ctx)
}

// historyPassed reports whether the history reached the run's limit.
func (c *chain) historyPassed(ctx workflow.Context) bool {
	return c.historyLimit > 0 && workflow.GetInfo(ctx).GetCurrentHistoryLength() >= c.historyLimit
}

// continueAsNew continues as new carrying the whole state in the
// request's Checkpoint. It first lets running update and signal handlers
// finish, drains the signal channels and lets webhook deliveries end, so
// no input or event is lost; when stay then holds (a handler changed the
// picture while it waited) it returns nil and the run carries on here.
// Otherwise it returns the continue-as-new error.
func (c *chain) continueAsNew(ctx workflow.Context, stay func() bool) error {
	err := workflow.Await(ctx, func() bool {
		return workflow.AllHandlersFinished(ctx) && c.inputs.idle() && !c.hooks.delivering() && c.log.written()
	})
	if err != nil {
		return err
	}
	if stay() {
		return nil
	}
	next := c.heir.handOn()
	workflow.GetLogger(ctx).Info("continuing as new", "runs", next.Checkpoint.Runs, "phase", next.Checkpoint.Phase,
		"history", workflow.GetInfo(ctx).GetCurrentHistoryLength(), "signals", c.inputs.received())
	return continueAsNewError(ctx, next)
}
