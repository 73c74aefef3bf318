package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
)

// goalAttrState is what a run sets PlanGoal to and whether it did.
type goalAttrState struct {
	value     string
	published bool
}

// resolve asks the worker, once per run and before anything is
// published, what PlanGoal holds for goal: the goal, or, on a worker that encrypts
// payloads, a keyed digest of it (activities.Activities.GoalAttr). Search
// attributes are never encrypted, so the workflow cannot write the goal
// itself without knowing whether payloads are encrypted, nor digest it
// without the key; the worker knows both, and asking it here, rather than
// trusting the client that started the run, keeps plans started by any
// client (the temporal CLI, another SDK) from leaking their goal. A local
// activity costs one marker event and its answer is recorded, so a replay
// (after a key rotation too) upserts what the run did. A run that cannot
// get an answer sets no PlanGoal rather than the plaintext. The caller
// passes the request's goal, not a clarified one: it is what a client
// searches for, and every run of the chain carries it.
func (g *goalAttrState) resolve(ctx workflow.Context, goal string) {
	ctx = workerCtx(ctx, "the PlanGoal value")
	var out activities.GoalAttrOutput
	err := workflow.ExecuteLocalActivity(ctx, a.GoalAttr, activities.GoalAttrInput{Goal: goal}).Get(ctx, &out)
	if err != nil {
		workflow.GetLogger(ctx).Warn("PlanGoal left unset: the worker did not say what it holds", "error", err)
		return
	}
	g.value = out.Value
}

// due returns the PlanGoal value publish sets now, if any: what resolve
// got, once.
func (g goalAttrState) due() (string, bool) {
	return g.value, g.value != "" && !g.published
}
