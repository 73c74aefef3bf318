package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// published is what the search attributes last said, so that they are
// upserted only when a value changes. Its phase is empty until the first
// upsert, as nothing is upserted before the run has a phase.
type published struct {
	phase    plan.Phase
	awaiting signals.Awaiting
	percent  int
}

// addUsage adds an activity's usage to the run's.
func (r *run) addUsage(u plan.Usage) {
	r.st.Usage = r.st.Usage.Add(u)
}

// setPhase moves the run to phase and publishes it. A move the mode
// machine does not allow is logged, not refused: the phase is the truth.
func (r *run) setPhase(ctx workflow.Context, phase plan.Phase) {
	if from, to := r.st.Phase.Mode(), phase.Mode(); r.st.Phase != "" && !plan.CanTransition(from, to) {
		workflow.GetLogger(ctx).Warn("unexpected mode change", "from", from, "to", to, "phase", phase)
	}
	r.st.Phase = phase
	r.publish(ctx)
}

// setPaused pauses or resumes the run and keeps the paused time: the
// progress query reports running time and paused time apart.
func (r *run) setPaused(ctx workflow.Context, paused bool) {
	now := workflow.Now(ctx)
	if r.st.PausedAt != nil {
		r.st.PausedFor += plan.Duration(now.Sub(*r.st.PausedAt))
		r.st.PausedAt = nil
	}
	if paused {
		r.st.PausedAt = &now
	}
	r.st.Paused = paused
}

// view is the run as the queries, the current details and the search
// attributes read it: pointers to its state, nothing copied, so building
// one costs nothing and a projection is computed only when asked for.
func (r *run) view() view.Run {
	return view.Run{
		State:         &r.st,
		Request:       &r.req,
		WorkflowID:    r.workflowID,
		Namespace:     r.namespace,
		Clarify:       r.clarify,
		Selecting:     r.sel.waiting,
		Refining:      r.sel.refining,
		WorkspaceWait: r.workspaceWait,
		Limits:        r.limits(),
	}
}

// publish upserts the search attributes that changed and refreshes the
// current details the UI shows.
func (r *run) publish(ctx workflow.Context) {
	v := r.view()
	now := published{phase: r.st.Phase, awaiting: view.Awaiting(v), percent: view.Percent(v)}
	first := r.published.phase == ""
	var ups []temporal.SearchAttributeUpdate
	if first || now.phase != r.published.phase {
		ups = append(ups, signals.PhaseAttr.ValueSet(string(now.phase)))
	}
	if first || now.awaiting != r.published.awaiting {
		ups = append(ups, signals.AwaitingAttr.ValueSet(string(now.awaiting)))
	}
	if first || now.percent != r.published.percent {
		ups = append(ups, signals.ProgressAttr.ValueSet(int64(now.percent)))
	}
	// Set by the workflow, not by the client that starts the run, so
	// that a plan started by any client (another SDK, the temporal CLI)
	// is found by its goal; see resolveGoalAttr.
	goal, setGoal := r.goalAttrDue()
	if setGoal {
		ups = append(ups, signals.GoalAttr.ValueSet(goal))
	}
	if len(ups) > 0 && now.phase != "" {
		if err := workflow.UpsertTypedSearchAttributes(ctx, ups...); err != nil {
			workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
		}
		r.published = now
		r.goal.published = r.goal.published || setGoal
	}
	workflow.SetCurrentDetails(ctx, view.Details(v))
}
