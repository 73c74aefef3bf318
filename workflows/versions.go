package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/signals"
)

// Change ids of behaviour changes made after runs were released, one per
// change. A run resolves them once, at its start (resolveFeatures): a run
// that began under older code finds no marker on replay and keeps the old
// behaviour to its end, a run started since (a continuation included)
// records a marker and gets the new one.
//
// Each marker costs a run two events (the marker and the
// TemporalChangeVersion upsert), so the newest id, goalDigestChange,
// stands for every change before it too: a run that records it has them
// all and records no other. Runs that began before it still find their
// own markers (workspaceLeaseChange or boundedHistoryChange, each of
// which stood for every change before it, or one per change before that)
// and replay as they ran. The SDK
// matches version markers by id, not by their place among the commands,
// so the order of the calls does not matter.
const (
	// endTruthfullyChange: a failed plan ends Failed, with a PlanFailed
	// application error carrying the Result, and a cancelled plan ends
	// Canceled, with the Result as the cancellation's details. Before,
	// both completed with a Result whose status said so.
	endTruthfullyChange = "end-failed-or-canceled"
	// progressDoneChange: the percent (PlanProgress, the progress query,
	// webhooks, the details) counts steps completed or skipped only. A
	// cancelled step never ran, so a cancelled plan no longer says 100.
	progressDoneChange = "progress-counts-work-done"
	// goalAttrChange: the first upsert sets PlanGoal.
	goalAttrChange = "search-attribute-plan-goal"
	// notifyChildChange: webhook deliveries run in PlanNotify child
	// workflows that outlive the plan, so the plan closes as soon as its
	// Result is ready. Before, Notify activities ran in the plan, which
	// waited for them.
	notifyChildChange = "notify-in-child-workflow"
	// historyBudgetChange: a step stops before a retry, an agent turn or
	// a tool call once the history passed its budget (see historyBudget).
	historyBudgetChange = "history-budget"
	// recordUndecodableChange: a signal whose payload is not JSON is
	// recorded as a rejection. Before, the SDK dropped it.
	recordUndecodableChange = "record-undecodable-signals"
	// deadlineChange: a run with a deadline stops at it (deadline.go).
	deadlineChange = "run-deadline"
	// budgetEveryCallChange: token and cost budgets are checked before
	// every LLM call of a step and before each reflection, not only
	// between steps (see llmBudget).
	budgetEveryCallChange = "budget-before-every-llm-call"
	// skipHoldsDependentsChange: a pending skip confirmation holds only
	// the steps it asks to skip and their dependents; before, it held
	// all of execution until answered.
	skipHoldsDependentsChange = "skip-confirmation-holds-dependents"
	// progressWorkChange: the percent counts completed steps among those
	// that will run (plan.Plan.PercentOfWork): skipped steps, steps
	// cancelled before they started and unused fallbacks leave the count.
	progressWorkChange = "progress-counts-steps-that-run"
	// notifyStateChange: webhooks also report step-started,
	// plan-updated, paused, resumed and budget-exceeded.
	notifyStateChange = "notify-state-changes"
	// toolLimitsChange: validation and edits refuse a step that names a
	// tool the product does not have (plan.BuiltinTools).
	toolLimitsChange = "validate-builtin-tools"
	// defaultParallelismChange: a request that leaves parallelism unset
	// runs signals.DefaultParallelism steps at once; before, one. Resolved
	// (features.resolveFor) only for such requests.
	defaultParallelismChange = "default-parallelism"
	// fallbackRescueChange: a step that its fallback rescued says so in
	// its note ("rescued by fallback fb after: <error>"), and one whose
	// fallback failed too says that. Before, the note still said the
	// fallback runs in its place.
	fallbackRescueChange = "fallback-rescue-note"
	// exactCountsChange: a step's result counts the commands of all its
	// tries, and a step its fallback ran for keeps its own commands, files
	// and usage; the fallback's are on the fallback step only. Before, a
	// step held its last try's counts, or a copy of its fallback's, which
	// the Result's metrics then counted twice.
	exactCountsChange = "exact-step-counts"
	// boundedHistoryChange: the run's history and state stop growing
	// faster than its steps. The phase no longer flips to reflecting and
	// back around each reflection (two search-attribute upserts a step
	// that told an operator nothing the progress does not), and a done
	// step's result keeps only a head of its output once its reflection
	// ran (plan.Plan.CompactResult), so queries, the continue-as-new state
	// and the Result stay bounded per step.
	boundedHistoryChange = "bounded-history"
	// workspaceLeaseChange: a plan that names no workspace works in a
	// folder of its own (plan.DefaultWorkspace), and a plan leases its
	// workspace from the PlanWorkspaces registry before clarifying
	// (AcquireWorkspace), refused or waiting while another open plan
	// holds it, and releases it when it ends; a first run refuses a
	// request with an unknown field; and a run continues as new after
	// signals.MaxSignalsPerRun signals, at a step boundary or while it
	// waits for a selection, its workspace or a resume. Runs from before
	// have none of it. New runs record this marker only: it stands for
	// boundedHistoryChange and every change before.
	workspaceLeaseChange = "workspace-lease"
	// goalDigestChange: PlanGoal holds what the GoalAttr local activity
	// answers at the start of every run: the goal on a worker that does
	// not encrypt payloads, a keyed digest of it on one that does (see
	// resolveGoalAttr). Before, the workflow wrote the goal, encryption
	// or not. New runs record this marker only: it stands for
	// workspaceLeaseChange and every change before.
	goalDigestChange = "search-attribute-goal-digest"
)

// features are the behaviour changes a run has, see the change ids.
type features struct {
	// refuseForeignCheckpoint and defaultParallelism are resolved before
	// the run is built, for the requests they concern only.
	refuseForeignCheckpoint bool
	defaultParallelism      bool
	endTruthfully           bool
	progressDone            bool
	goalAttr                bool
	notifyChild             bool
	historyBudget           bool
	recordUndecodable       bool
	deadline                bool
	budgetEveryCall         bool
	skipHoldsDependents     bool
	progressWork            bool
	notifyState             bool
	toolLimits              bool
	fallbackRescue          bool
	exactCounts             bool
	boundedHistory          bool
	// lease brings everything workspaceLeaseChange names.
	lease bool
	// goalDigest: PlanGoal is what the worker says (goalDigestChange).
	goalDigest bool
}

// resolveFeatures decides, once per run and before anything else, which
// changes it has. It only records markers, so it may run before the
// handlers are registered. The ids resolved only for some requests
// (foreignCheckpointChange, defaultParallelismChange) are left to
// resolveFor.
func resolveFeatures(ctx workflow.Context) features {
	if workflow.GetVersion(ctx, goalDigestChange, workflow.DefaultVersion, 1) == 1 {
		f := allBefore()
		f.lease, f.goalDigest = true, true
		return f
	}
	if workflow.GetVersion(ctx, workspaceLeaseChange, workflow.DefaultVersion, 1) == 1 {
		f := allBefore()
		f.lease = true
		return f
	}
	return resolveEarlier(ctx)
}

// resolveEarlier resolves the changes of a run from before
// workspaceLeaseChange.
func resolveEarlier(ctx workflow.Context) features {
	if workflow.GetVersion(ctx, boundedHistoryChange, workflow.DefaultVersion, 1) == 1 {
		return allBefore()
	}
	on := func(id string) bool {
		return workflow.GetVersion(ctx, id, workflow.DefaultVersion, 1) == 1
	}
	return features{
		endTruthfully:       on(endTruthfullyChange),
		progressDone:        on(progressDoneChange),
		goalAttr:            on(goalAttrChange),
		notifyChild:         on(notifyChildChange),
		historyBudget:       on(historyBudgetChange),
		recordUndecodable:   on(recordUndecodableChange),
		deadline:            on(deadlineChange),
		budgetEveryCall:     on(budgetEveryCallChange),
		skipHoldsDependents: on(skipHoldsDependentsChange),
		progressWork:        on(progressWorkChange),
		notifyState:         on(notifyStateChange),
		toolLimits:          on(toolLimitsChange),
		fallbackRescue:      on(fallbackRescueChange),
		exactCounts:         on(exactCountsChange),
	}
}

// allBefore is every change up to boundedHistoryChange.
func allBefore() features {
	return features{
		refuseForeignCheckpoint: true, defaultParallelism: true,
		endTruthfully: true, progressDone: true, goalAttr: true, notifyChild: true, historyBudget: true,
		recordUndecodable: true, deadline: true, budgetEveryCall: true, skipHoldsDependents: true,
		progressWork: true, notifyState: true, toolLimits: true, fallbackRescue: true, exactCounts: true,
		boundedHistory: true,
	}
}

// resolveFor resolves, for a run without boundedHistoryChange, the ids
// an older run resolved only for some requests, as it did: the checkpoint
// refusal for a first run that carries one, the default parallelism for a
// request that leaves it unset.
func (f *features) resolveFor(ctx workflow.Context, req signals.StartRequest) {
	if f.boundedHistory {
		return
	}
	if req.Checkpoint != nil && workflow.GetInfo(ctx).ContinuedExecutionRunID == "" {
		f.refuseForeignCheckpoint = workflow.GetVersion(ctx, foreignCheckpointChange, workflow.DefaultVersion, 1) == 1
	}
	if req.Execution.Parallelism == 0 {
		f.defaultParallelism = workflow.GetVersion(ctx, defaultParallelismChange, workflow.DefaultVersion, 1) == 1
	}
}
