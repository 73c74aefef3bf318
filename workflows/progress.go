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

// mode is the phase's mode, or paused.
func (r *run) mode() plan.Mode {
	if r.st.Paused {
		return plan.ModePaused
	}
	return r.st.Phase.Mode()
}

// awaiting says what the run waits for, the most pressing first.
func (r *run) awaiting() signals.Awaiting {
	switch {
	case r.st.Phase.Terminal():
		return signals.AwaitingNone
	case r.workspaceWait != nil:
		return signals.AwaitingWorkspace
	case r.clarify.waiting:
		return signals.AwaitingClarification
	case r.sel.waiting && !r.sel.refining:
		return signals.AwaitingSelection
	case len(r.st.SkipConfirmations) > 0:
		return signals.AwaitingConfirmation
	case r.st.Paused:
		return signals.AwaitingResume
	}
	return signals.AwaitingNone
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

// pausedFor is the time the run spent paused until now.
func (r *run) pausedFor(ctx workflow.Context) plan.Duration {
	d := r.st.PausedFor
	if r.st.PausedAt != nil {
		d += elapsedSince(ctx, *r.st.PausedAt)
	}
	return d
}

// percent is the share of steps done, 0 to 100: completed steps among
// those that will run (plan.Plan.PercentOfWork). Skipped steps, steps
// cancelled before they started and unused fallbacks leave the count; a
// failed or cancelled step did not do its work, so a plan that failed or
// was cancelled half way says how far it got.
func (r *run) percent() int {
	if r.st.Plan == nil {
		return 0
	}
	return r.st.Plan.PercentOfWork()
}

// publish upserts the search attributes that changed and refreshes the
// current details the UI shows.
func (r *run) publish(ctx workflow.Context) {
	now := published{phase: r.st.Phase, awaiting: r.awaiting(), percent: r.percent()}
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
	workflow.SetCurrentDetails(ctx, r.details())
}

// progress answers the progress query.
func (r *run) progress(ctx workflow.Context) signals.Progress {
	p := signals.Progress{
		Phase:     r.st.Phase,
		Mode:      r.mode(),
		Awaiting:  r.awaiting(),
		Paused:    r.st.Paused,
		StartedAt: r.st.StartedAt,
		Elapsed:   elapsedSince(ctx, r.st.StartedAt) - r.pausedFor(ctx),
		PausedFor: r.pausedFor(ctx),
		Usage:     r.st.Usage,
		Tokens:    r.st.Usage.TotalTokens,
		CostUSD:   r.st.Usage.CostUSD,
		LastError: r.st.LastError,
		Offline:   r.st.Offline,
	}
	if r.st.Plan == nil {
		return p
	}
	p.Totals = r.st.Plan.Totals()
	p.Percent = r.percent()
	p.EstimatedRemaining = r.st.Plan.Remaining(r.req.Execution.Parallelism)
	p.MaxConcurrent = r.st.MaxConcurrent
	for _, s := range r.st.Plan.Steps {
		if s.Status == plan.StepRunning || s.Status == plan.StepRetrying {
			p.CurrentStep = &signals.StepRef{ID: s.ID, Number: s.Number, Title: s.Title}
			break
		}
	}
	return p
}

// planView answers the plan query.
func (r *run) planView() signals.PlanView {
	if r.st.Plan == nil {
		return signals.PlanView{}
	}
	return signals.PlanView{Plan: r.st.Plan, Validation: plan.Validate(*r.st.Plan, r.limits())}
}

// pending answers the pending query.
func (r *run) pending() signals.Pending {
	p := signals.Pending{Awaiting: r.awaiting(), Paused: r.st.Paused, Rejected: r.st.Rejected, Workspace: r.workspaceWait}
	if r.sel.waiting {
		p.Selection = &signals.SelectionRequest{
			Revision:  r.st.Options.Revision,
			OptionIDs: r.optionIDs(),
			Deadline:  r.st.Options.SelectionTimeout,
			OnTimeout: string(r.req.Selection.OnTimeout),
		}
	}
	if r.clarify.waiting {
		p.Clarification = &signals.ClarificationRequest{Questions: r.unanswered(), Deadline: r.clarify.deadline}
	}
	// A copy, nil when none is open, as the query always answered.
	p.SkipConfirmations = append([]signals.SkipConfirmation(nil), r.st.SkipConfirmations...)
	return p
}
