package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// priorityKey is the context key of a run's task priorities.
type priorityKey struct{}

// priorities are the task priorities of a run's activities: its own
// (clarify, options, summary, snapshots) and its background steps' (step
// work and its reflection), one key lower (signals.StepPriorityKey). The
// fairness key is the request's tenant; without one it is left empty, so
// activities inherit the one the plan was started with (the starting
// client's identity, signals.TaskPriority).
type priorities struct {
	own, step temporal.Priority
}

// withPriorities puts the task priorities of req's plan in ctx. The run's
// own workflow tasks, its continuation's and its children's keep the
// priority the plan was started with (the server and the SDK carry it
// over); setting it here with WithWorkflowPriority would give the run a
// context of options of its own, away from the one its current details
// are read from.
func withPriorities(ctx workflow.Context, req signals.StartRequest) workflow.Context {
	p := priorities{
		own:  temporal.Priority{PriorityKey: signals.PriorityKey(req.Priority), FairnessKey: req.Tenant},
		step: temporal.Priority{PriorityKey: signals.StepPriorityKey(req.Priority), FairnessKey: req.Tenant},
	}
	return workflow.WithValue(ctx, priorityKey{}, p)
}

// ownPriority sets ctx's activity options to the run's own priority.
func ownPriority(ctx workflow.Context) workflow.Context {
	if p, ok := ctx.Value(priorityKey{}).(priorities); ok {
		return workflow.WithPriority(ctx, p.own)
	}
	return ctx
}

// stepPriority sets ctx's activity options to the run's background step
// priority.
func stepPriority(ctx workflow.Context) workflow.Context {
	if p, ok := ctx.Value(priorityKey{}).(priorities); ok {
		return workflow.WithPriority(ctx, p.step)
	}
	return ctx
}
