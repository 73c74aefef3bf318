package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// ErrorTypeGoalDigest is the type of the error GoalAttr fails with when the
// worker encrypts payloads but cannot digest the goal; non-retryable.
const ErrorTypeGoalDigest = "GoalDigest"

// GoalAttrInput is the goal of a plan, as its request gave it.
type GoalAttrInput struct {
	Goal string `json:"goal"`
}

// GoalAttrOutput is what the PlanGoal search attribute holds for it.
type GoalAttrOutput struct {
	Value string `json:"value"`
	// Digest marks a keyed digest rather than the goal.
	Digest bool `json:"digest,omitempty"`
}

// GoalAttr returns what the PlanGoal search attribute holds for a goal:
// the goal itself (signals.GoalAttrValue) on a worker that does not
// encrypt payloads, and on one that does (GoalDigest set), a keyed digest
// of the normalised goal (signals.NormalizeGoal), since search attributes
// are never encrypted. It is an activity because the decision and the key
// belong to the worker: the workflow, which holds no key and must replay
// the same, upserts what this answered, and the answer is recorded in
// history (encrypted like every payload). An error digesting is an
// ErrorTypeGoalDigest error; the workflow then sets no PlanGoal at all.
func (n *Notices) GoalAttr(_ context.Context, in GoalAttrInput) (GoalAttrOutput, error) {
	if n.GoalDigest == nil {
		return GoalAttrOutput{Value: signals.GoalAttrValue(in.Goal)}, nil
	}
	d, err := n.GoalDigest(signals.NormalizeGoal(in.Goal))
	if err != nil {
		return GoalAttrOutput{}, temporal.NewNonRetryableApplicationError("digest the goal: "+err.Error(), ErrorTypeGoalDigest, nil)
	}
	return GoalAttrOutput{Value: d, Digest: true}, nil
}
