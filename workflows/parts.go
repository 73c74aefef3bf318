package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
)

// The interfaces here are what the run's parts ask of one another. Each
// part holds the state it owns and, for the rest, one of these (or a
// small interface of its own): never the run itself.

// continuer continues the run as new at a safe point (the chain): due
// says whether a run that waits should, and continueAsNew does, once
// handlers finished, unless stay holds by then.
type continuer interface {
	due(ctx workflow.Context) bool
	continueAsNew(ctx workflow.Context, stay func() bool) error
}

// reporter is what every part tells the run of what it did: publish shows
// the run anew (search attributes, current details), addUsage adds an
// activity's usage in a phase to the run's (and tells the log), noteError notes an error the run goes on
// after.
type reporter interface {
	publish(ctx workflow.Context)
	addUsage(ctx workflow.Context, phase string, u plan.Usage)
	noteError(msg string)
}

// pauser holds the run at its next step boundary (the controls' pause):
// setPaused pauses or resumes it for a reason without publishing.
type pauser interface {
	paused() bool
	setPaused(ctx workflow.Context, paused bool, reason string)
}

// softFail notes err, of what, as the run's last error and goes on,
// unless the run was cancelled, in which case the cancellation is
// returned.
func softFail(ctx workflow.Context, to reporter, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	to.noteError(fmt.Sprintf("%s: %v", what, err))
	workflow.GetLogger(ctx).Warn("continuing after error", "what", what, "error", err)
	return nil
}

// finishing reports whether a run in phase ph is summarizing or over,
// when no control input applies any more.
func finishing(ph plan.Phase) bool {
	return ph == plan.PhaseSummarizing || ph.Terminal()
}
