package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// publisher shows the run outside its queries: the search attributes,
// upserted only when a value changes (an upsert is a command), and the
// current details the Web UI reads (not a command). It reads the run
// through a view.Run handed to it and writes only its own bookkeeping.
type publisher struct {
	attrs published
	// goal is what PlanGoal holds, asked of the worker at the start of
	// every run (resolveGoalAttr).
	goal goalAttrState
}

// published is what the search attributes last said, so that they are
// upserted only when a value changes. Its phase is empty until the first
// upsert, as nothing is upserted before the run has a phase.
type published struct {
	phase    plan.Phase
	awaiting signals.Awaiting
	percent  int
}

// publish upserts the search attributes that changed and refreshes the
// current details.
func (p *publisher) publish(ctx workflow.Context, v view.Run) {
	now := published{phase: v.State.Phase, awaiting: view.Awaiting(v), percent: view.Percent(v)}
	first := p.attrs.phase == ""
	var ups []temporal.SearchAttributeUpdate
	if first || now.phase != p.attrs.phase {
		ups = append(ups, signals.PhaseAttr.ValueSet(string(now.phase)))
	}
	if first || now.awaiting != p.attrs.awaiting {
		ups = append(ups, signals.AwaitingAttr.ValueSet(string(now.awaiting)))
	}
	if first || now.percent != p.attrs.percent {
		ups = append(ups, signals.ProgressAttr.ValueSet(int64(now.percent)))
	}
	// Set by the workflow, not by the client that starts the run, so
	// that a plan started by any client (another SDK, the temporal CLI)
	// is found by its goal; see resolveGoalAttr.
	goal, setGoal := p.goalAttrDue()
	if setGoal {
		ups = append(ups, signals.GoalAttr.ValueSet(goal))
	}
	if len(ups) > 0 && now.phase != "" {
		if err := workflow.UpsertTypedSearchAttributes(ctx, ups...); err != nil {
			workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
		}
		p.attrs = now
		p.goal.published = p.goal.published || setGoal
	}
	workflow.SetCurrentDetails(ctx, view.Details(v))
}
