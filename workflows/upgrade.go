package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// A PlanMode run is pinned to the worker build that started it (worker
// versioning): its code never changes under it. It moves to the
// deployment's current build only when it continues as new, and it
// continues as new for that reason alone at its next step boundary, so
// that a plan that runs for days does not keep an old build alive to its
// end.

// upgradeDue reports whether the deployment's target build is no longer
// the one this run is pinned to. The server says so in the workflow task
// (it is in the history, so a replay sees the same answer); an
// unversioned run never hears it.
func upgradeDue(ctx workflow.Context) bool {
	return workflow.GetInfo(ctx).GetTargetWorkerDeploymentVersionChanged()
}

// continueAsNewError continues the run as new with next. When the target
// build changed, the continuation starts on it (AutoUpgrade for its first
// task; then it pins itself there, as PlanMode is registered Pinned);
// otherwise it stays on this run's build.
func continueAsNewError(ctx workflow.Context, next signals.StartRequest) error {
	var opts workflow.ContinueAsNewErrorOptions
	if upgradeDue(ctx) {
		opts.InitialVersioningBehavior = workflow.ContinueAsNewVersioningBehaviorAutoUpgrade
		workflow.GetLogger(ctx).Info("the deployment's current build changed: the continuation runs on it")
	}
	return workflow.NewContinueAsNewErrorWithOptions(ctx, opts, signals.WorkflowType, next)
}
