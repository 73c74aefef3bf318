package signals

import (
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// Task priorities. Temporal dispatches a backed-up task queue's tasks by
// priority key, 1 first, up to the server's matching.priorityLevels (5 by
// default; 3 when a task sets none), and within a key shares dispatch
// fairly among fairness keys (with matching.enableFairness on).
//
// A plan's own workflow tasks, which carry the operator's inputs
// (selections, answers, approvals, pause), its planning, clarification
// and summary run at its priority's key; its background steps one key
// below, so a person waiting on a plan is served before the steps of
// plans of the same priority. A plan's tasks carry its tenant as their
// fairness key, so one tenant's 300-step plan does not starve another's
// five-step ones.
const (
	// PriorityKeyCritical is the key of a critical plan's own tasks.
	PriorityKeyCritical = 1
	// PriorityKeyLowest is the key past which no task goes: the
	// server's default number of levels.
	PriorityKeyLowest = 5
)

// PriorityKey is the task priority key of a plan of priority p's own
// tasks: 1 for critical, 2 high, 3 medium (and unset), 4 low.
func PriorityKey(p plan.Priority) int {
	switch p {
	case plan.PriorityCritical:
		return PriorityKeyCritical
	case plan.PriorityHigh:
		return 2
	case plan.PriorityLow:
		return 4
	}
	return 3
}

// StepPriorityKey is the key of a plan of priority p's background steps:
// one below its own tasks.
func StepPriorityKey(p plan.Priority) int {
	return min(PriorityKey(p)+1, PriorityKeyLowest)
}

// TaskPriority is what a client starts the plan of req with: its
// priority key, and its tenant, else identity, as the fairness key (cut
// to MaxNameBytes, the server's limit).
func TaskPriority(req StartRequest, identity string) temporal.Priority {
	key := req.Tenant
	if key == "" {
		key = plan.TruncateBytes(identity, MaxNameBytes)
	}
	return temporal.Priority{PriorityKey: PriorityKey(req.Priority), FairnessKey: key}
}
