package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/metrics"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The workflow records plans and steps through the SDK's workflow metrics
// handler, which reports through the worker's (metrics.address) and stays
// silent while a history replays, so recording needs no version and adds
// no command.

// countPlanStarted counts the plan once, in the first run of its chain
// (not in a continuation).
func countPlanStarted(ctx workflow.Context, continuation bool) {
	if !continuation {
		metrics.PlanStarted(workflow.GetMetricsHandler(ctx))
	}
}

// countPlanFinished counts the plan's end by its Result's status.
func countPlanFinished(ctx workflow.Context, status signals.Status) {
	metrics.PlanFinished(workflow.GetMetricsHandler(ctx), string(status))
}

// countStep counts a step that ended, by action and status, with the time
// it ran.
func countStep(ctx workflow.Context, s plan.Step) {
	var took time.Duration
	if s.StartedAt != nil && s.EndedAt != nil {
		took = s.EndedAt.Sub(*s.StartedAt)
	}
	metrics.StepFinished(workflow.GetMetricsHandler(ctx), string(s.Action), string(s.Status), took)
}
