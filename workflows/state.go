package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// The cycle owns the carried state; these are the writes the other parts
// make to it through the cycle, and the one read they all share.

// addUsage adds an activity's usage to the run's.
func (r *run) addUsage(u plan.Usage) {
	r.st.Usage = r.st.Usage.Add(u)
}

// noteError records msg as the run's last error: something failed and the
// run goes on.
func (r *run) noteError(msg string) {
	r.st.LastError = msg
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

// checkpoint is the run's state as one signals.Checkpoint: the cycle's
// own, with each part's. The slices and pointers are the parts' own, not
// copies.
func (r *run) checkpoint() signals.Checkpoint {
	cp := r.st
	cp.ApprovalState = r.gate.st
	cp.InputState = r.ctl.st
	cp.NotifyState = r.hooks.st
	cp.LeaseState = r.lease.st
	return cp
}

// restore splits cp, the state a previous run handed on, back into the
// cycle's and each part's.
func (r *run) restore(cp signals.Checkpoint) {
	r.gate.st, cp.ApprovalState = cp.ApprovalState, signals.ApprovalState{}
	r.ctl.st, cp.InputState = cp.InputState, signals.InputState{}
	r.hooks.st, cp.NotifyState = cp.NotifyState, signals.NotifyState{}
	r.lease.st, cp.LeaseState = cp.LeaseState, signals.LeaseState{}
	r.st = cp
}

// handOn is the request the run's continuation starts from: the run's
// own, its state in the checkpoint, one more run in the chain. Step
// results are compacted first; a plan handed in with the request is not
// carried a second time beside the checkpoint's.
func (r *run) handOn() signals.StartRequest {
	next := r.req
	compactAll(r.st.Plan)
	cp := r.checkpoint()
	cp.Runs++
	next.Checkpoint = &cp
	if cp.Plan != nil {
		next.Plan = nil
	}
	return next
}

// goal is the run's goal, clarified once clarification ran.
func (r *run) goal() string { return r.st.Goal }

// phase is the run's phase.
func (r *run) phase() plan.Phase { return r.st.Phase }

// percent is the share of the plan's work done (executor.percent).
func (r *run) percent() int { return r.exec.percent() }

// view is the run as the queries, the current details and the search
// attributes read it: the state assembled from the parts (a few hundred
// bytes copied, no slice or plan) and pointers to the rest, so building
// one costs next to nothing and a projection is computed only when asked
// for.
func (r *run) view() view.Run {
	cp := r.checkpoint()
	return view.Run{
		State:         &cp,
		Request:       &r.req,
		WorkflowID:    r.workflowID,
		Namespace:     r.namespace,
		Clarify:       r.clarify,
		Selecting:     r.sel.waiting,
		Refining:      r.sel.refining,
		WorkspaceWait: r.lease.wait,
		Limits:        r.lim,
	}
}

// publish shows the run's state outside its queries (see publisher).
func (r *run) publish(ctx workflow.Context) {
	r.pub.publish(ctx, r.view(), r.exec.percent(), r.exec.launched, r.publish)
}
