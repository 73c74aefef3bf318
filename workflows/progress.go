package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
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
	r.usage = r.usage.Add(u)
}

// setPhase moves the run to phase and publishes it. A move the mode
// machine does not allow is logged, not refused: the phase is the truth.
func (r *run) setPhase(ctx workflow.Context, phase plan.Phase) {
	if from, to := r.phase.Mode(), phase.Mode(); r.phase != "" && !plan.CanTransition(from, to) {
		workflow.GetLogger(ctx).Warn("unexpected mode change", "from", from, "to", to, "phase", phase)
	}
	r.phase = phase
	r.publish(ctx)
}

// mode is the phase's mode, or paused.
func (r *run) mode() plan.Mode {
	if r.exec.paused {
		return plan.ModePaused
	}
	return r.phase.Mode()
}

// awaiting says what the run waits for, the most pressing first.
func (r *run) awaiting() signals.Awaiting {
	switch {
	case r.phase.Terminal():
		return signals.AwaitingNone
	case r.clarify.waiting:
		return signals.AwaitingClarification
	case r.sel.waiting && !r.sel.refining:
		return signals.AwaitingSelection
	case len(r.exec.skips) > 0:
		return signals.AwaitingConfirmation
	case r.exec.paused:
		return signals.AwaitingResume
	}
	return signals.AwaitingNone
}

// percent is the share of steps done.
func (r *run) percent() int {
	if r.plan == nil {
		return 0
	}
	return r.plan.Percent()
}

// publish upserts the search attributes that changed and refreshes the
// current details the UI shows.
func (r *run) publish(ctx workflow.Context) {
	now := published{phase: r.phase, awaiting: r.awaiting(), percent: r.percent()}
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
	if len(ups) > 0 && now.phase != "" {
		if err := workflow.UpsertTypedSearchAttributes(ctx, ups...); err != nil {
			workflow.GetLogger(ctx).Warn("upsert search attributes", "error", err)
		}
		r.published = now
	}
	workflow.SetCurrentDetails(ctx, r.details())
}

// progress answers the progress query.
func (r *run) progress(ctx workflow.Context) signals.Progress {
	p := signals.Progress{
		Phase:     r.phase,
		Mode:      r.mode(),
		Awaiting:  r.awaiting(),
		Paused:    r.exec.paused,
		StartedAt: r.startedAt,
		Elapsed:   elapsedSince(ctx, r.startedAt),
		Usage:     r.usage,
		Tokens:    r.usage.TotalTokens,
		CostUSD:   r.usage.CostUSD,
		LastError: r.lastError,
		Offline:   r.offline,
	}
	if r.plan == nil {
		return p
	}
	p.Totals = r.plan.Totals()
	p.Percent = r.plan.Percent()
	p.EstimatedRemaining = r.plan.EstimatedRemaining()
	for _, s := range r.plan.Steps {
		if s.Status == plan.StepRunning || s.Status == plan.StepRetrying {
			p.CurrentStep = &signals.StepRef{ID: s.ID, Number: s.Number, Title: s.Title}
			break
		}
	}
	return p
}

// planView answers the plan query.
func (r *run) planView() signals.PlanView {
	if r.plan == nil {
		return signals.PlanView{}
	}
	return signals.PlanView{Plan: r.plan, Validation: plan.Validate(*r.plan, plan.Limits{MaxSteps: r.req.Execution.MaxSteps})}
}

// pending answers the pending query.
func (r *run) pending() signals.Pending {
	p := signals.Pending{Awaiting: r.awaiting(), Paused: r.exec.paused, Rejected: r.rejected}
	if r.sel.waiting {
		p.Selection = &signals.SelectionRequest{
			Revision:  r.sel.revision,
			OptionIDs: r.optionIDs(),
			Deadline:  r.sel.deadline,
			OnTimeout: string(r.req.Selection.OnTimeout),
		}
	}
	if r.clarify.waiting {
		p.Clarification = &signals.ClarificationRequest{Questions: r.unanswered(), Deadline: r.clarify.deadline}
	}
	for _, c := range r.exec.skips {
		p.SkipConfirmations = append(p.SkipConfirmations, c.SkipConfirmation)
	}
	return p
}
