package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Plans from outside: a StartRequest that carries a plan (req.Plan) runs
// it as it is. Clarification is skipped too, not only option generation
// and selection: a caller who hands in the steps has already decided what
// the goal means, and a rewritten goal or a direct answer would contradict
// the plan it sent.

// planPhase generates the first options. It fails when no option is valid.
func (r *run) planPhase(ctx workflow.Context) error {
	r.setPhase(ctx, plan.PhasePlanning)
	return r.sel.generate(ctx, "", nil)
}

// externalPlanID is the id of the plan a run with workflow id id was handed.
func externalPlanID(id string) string { return id + "-external" }

// adoptExternal records the request's plan as revision 1's only option,
// selected. The request was validated at the start (externalPlanProblems),
// so the plan is valid; it is checked again here so that a plan the
// workflow cannot run fails the run with the reasons rather than mid-way.
func (r *run) adoptExternal(ctx workflow.Context) error {
	// Planning lasts no time here: the executor starts in this workflow
	// task and publishes the run then, so the search attributes are
	// written once, not once for a phase nobody could see.
	r.st.Phase = plan.PhasePlanning
	p := r.req.Plan.Plan(externalPlanID(r.workflowID), r.workflowID, r.st.Goal, workflow.Now(ctx))
	if res := plan.Validate(p, r.lim); !res.Valid {
		return fmt.Errorf("external plan: %v", issueTexts(res.Errors))
	}
	o := plan.Option{
		ID:          signals.ExternalOptionID,
		Title:       p.Title,
		Description: "the plan handed in with the start request",
		Plan:        p,
	}
	return r.sel.adopt(ctx, o)
}

// snapshotFirst returns what the snapshot before execution takes when the
// lease can take it too: for a plan handed in with the request, which
// runs once leased, with nothing between that changes the folder (a fork
// brings its parent's files after the lease, so it snapshots after). Its
// plan id is the one adoptExternal gives the plan.
func (r *run) snapshotFirst() *activities.SnapshotInput {
	if r.req.Plan == nil || r.req.Fork != nil {
		return nil
	}
	return &activities.SnapshotInput{PlanID: externalPlanID(r.workflowID), Workspace: r.req.Workspace,
		Files: r.exec.filesRef()}
}
