package workflows

import (
	"go.temporal.io/sdk/workflow"
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
