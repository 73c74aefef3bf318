// Package view computes what a plan shows of itself: the progress, plan
// and pending queries' answers, the search attribute values and the
// markdown the Web UI shows as the run's current details. It reads a
// snapshot of the run's state and writes nothing, so it is tested without
// Temporal and the workflow calls it only when a value is asked for.
//
// Everything here runs inside workflow code: no I/O, no clock (the caller
// passes the workflow's time), no map iteration whose order matters.
package view

import (
	"time"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Run is what the views read of a run: the state it carries across
// continue-as-new, its request, and the little it keeps besides. The
// pointers are the run's own; views never write through them.
type Run struct {
	State      *signals.Checkpoint
	Request    *signals.StartRequest
	WorkflowID string
	Namespace  string
	// Clarify is the clarification the run waits for, if any.
	Clarify Clarification
	// Selecting is set while the run waits for a selection, Refining
	// while a refine runs (then no selection is taken).
	Selecting, Refining bool
	// WorkspaceWait is the busy workspace the run waits for, if any.
	WorkspaceWait *signals.WorkspaceWait
	// Limits are the ones the plan query validates the plan against.
	Limits plan.Limits
}

// Clarification is a pending clarification: the questions asked, the
// answers given so far (by question text) and until when the run waits.
type Clarification struct {
	Questions []string
	Answers   map[string]string
	Deadline  *time.Time
	Waiting   bool
}

// Unanswered returns the questions without an answer, in order.
func (c Clarification) Unanswered() []string {
	var out []string
	for _, q := range c.Questions {
		if _, ok := c.Answers[q]; !ok {
			out = append(out, q)
		}
	}
	return out
}

// Mode is the phase's mode, or paused.
func Mode(r Run) plan.Mode {
	if r.State.Paused {
		return plan.ModePaused
	}
	return r.State.Phase.Mode()
}

// Awaiting says what the run waits for, the most pressing first.
func Awaiting(r Run) signals.Awaiting {
	st := r.State
	switch {
	case st.Phase.Terminal():
		return signals.AwaitingNone
	case r.WorkspaceWait != nil:
		return signals.AwaitingWorkspace
	case r.Clarify.Waiting:
		return signals.AwaitingClarification
	case r.Selecting && !r.Refining:
		return signals.AwaitingSelection
	case len(st.SkipConfirmations) > 0:
		return signals.AwaitingConfirmation
	case len(st.Approvals) > 0:
		return signals.AwaitingApproval
	case st.Paused:
		return signals.AwaitingResume
	}
	return signals.AwaitingNone
}

// Percent is the share of the plan's work done, 0 to 100: completed steps
// among those that will run (plan.Plan.PercentOfWork).
func Percent(r Run) int {
	if r.State.Plan == nil {
		return 0
	}
	return r.State.Plan.Progress().PercentOfWork()
}

// PausedFor is the time the run spent paused until now.
func PausedFor(st *signals.Checkpoint, now time.Time) plan.Duration {
	d := st.PausedFor
	if st.PausedAt != nil {
		d += plan.Duration(now.Sub(*st.PausedAt))
	}
	return d
}

// Progress answers the progress query at the workflow time now.
func Progress(r Run, now time.Time) signals.Progress {
	st := r.State
	paused := PausedFor(st, now)
	p := signals.Progress{
		Phase:     st.Phase,
		Mode:      Mode(r),
		Awaiting:  Awaiting(r),
		Paused:    st.Paused,
		StartedAt: st.StartedAt,
		Elapsed:   plan.Duration(now.Sub(st.StartedAt)) - paused,
		PausedFor: paused,
		Usage:     st.Usage,
		Tokens:    st.Usage.TotalTokens,
		CostUSD:   st.Usage.CostUSD,
		LastError: st.LastError,
		Offline:   st.Offline,
	}
	if st.Plan == nil {
		return p
	}
	p.Totals = st.Plan.Progress().Totals()
	p.Percent = Percent(r)
	p.EstimatedRemaining = st.Plan.Progress().Remaining(r.Request.Execution.Parallelism)
	p.MaxConcurrent = st.MaxConcurrent
	for _, s := range st.Plan.Steps {
		if s.Status == plan.StepRunning || s.Status == plan.StepRetrying {
			p.CurrentStep = &signals.StepRef{ID: s.ID, Number: s.Number, Title: s.Title}
			break
		}
	}
	return p
}

// Plan answers the plan query: the plan and its validation.
func Plan(r Run) signals.PlanView {
	if r.State.Plan == nil {
		return signals.PlanView{}
	}
	return signals.PlanView{Goal: r.State.Goal, Plan: r.State.Plan, Validation: plan.Validate(*r.State.Plan, r.Limits)}
}

// OptionIDs lists the options' ids in rank order.
func OptionIDs(r Run) []string {
	ids := make([]string, 0, len(r.State.Options.Options))
	for _, o := range r.State.Options.Options {
		ids = append(ids, o.ID)
	}
	return ids
}

// Pending answers the pending query: what the run waits for and the
// inputs it refused.
func Pending(r Run) signals.Pending {
	st := r.State
	p := signals.Pending{Awaiting: Awaiting(r), Paused: st.Paused, Rejected: st.Rejected, Workspace: r.WorkspaceWait}
	if r.Selecting {
		p.Selection = &signals.SelectionRequest{
			Revision:  st.Options.Revision,
			OptionIDs: OptionIDs(r),
			Deadline:  st.Options.SelectionTimeout,
			OnTimeout: string(r.Request.Selection.OnTimeout),
		}
	}
	if r.Clarify.Waiting {
		p.Clarification = &signals.ClarificationRequest{Questions: r.Clarify.Unanswered(), Deadline: r.Clarify.Deadline}
	}
	// A copy, nil when none is open, as the query always answered.
	p.SkipConfirmations = append([]signals.SkipConfirmation(nil), st.SkipConfirmations...)
	p.Approvals = append([]signals.ToolApproval(nil), st.Approvals...)
	return p
}
