package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// finish ends the run with status: it settles the plan, asks for a summary
// (a partial one unless completed) and builds the Result. When the run was
// cancelled it waits for running steps to acknowledge, marks the rest
// cancelled and does its work in a disconnected context, so the summary is
// still written.
func (r *run) finish(ctx workflow.Context, status signals.Status, runErr error) (signals.Result, error) {
	r.ending = true
	switch {
	case ctx.Err() == nil && r.exec.deadline != "":
		// The deadline cancelled the work, not the run: it fails.
		status, runErr = signals.StatusFailed, r.settleDeadline(ctx)
	case ctx.Err() != nil:
		status = signals.StatusCancelled
		ctx, _ = workflow.NewDisconnectedContext(ctx)
		r.settleCancelled(ctx)
	default:
		r.exec.finishExecution(ctx)
	}
	r.exec.files.leave(ctx)
	r.ctl.lift(ctx)
	r.exec.skips.dropAll()
	r.setPhase(ctx, plan.PhaseSummarizing)
	compactAll(r.st.Plan)
	if r.st.Plan != nil {
		r.st.Plan.Status = planStatus(status)
		r.st.Plan.UpdatedAt = workflow.Now(ctx)
	}
	res := signals.Result{
		Status:           status,
		SelectedOptionID: r.st.Options.SelectedID,
		Plan:             r.st.Plan,
		BudgetExceeded:   r.exec.budgetExceeded,
		Offline:          r.st.Offline,
		SnapshotID:       r.st.SnapshotID,
		Workspace:        r.req.Workspace,
		Manifest:         r.st.Manifest,
		Goal:             r.st.Goal,
		ForkedFrom:       r.st.ForkedFrom,
	}
	switch {
	case runErr != nil && !temporal.IsCanceledError(runErr):
		res.Error = runErr.Error()
	case status == signals.StatusCancelled:
		res.Error = "cancelled"
	}
	// Nothing of the run touches the folder from here on: a rollback
	// that is running finishes first, and none is accepted once the run
	// is ending. The lease goes back while the summary is written.
	_ = workflow.Await(ctx, func() bool { return !r.ctl.rollingBack })
	released := r.lease.release(ctx)
	res.Summary = r.summary(ctx, status)
	if r.st.Plan != nil {
		res.Metrics = r.st.Plan.Progress().Metrics()
		// Only the Result carries it, not the state: replay compares
		// no payload of the completion, so it needs no version.
		res.Metrics.MaxConcurrent = r.st.MaxConcurrent
	}
	res.Usage = r.st.Usage
	res.Tokens = r.st.Usage.TotalTokens
	res.CostUSD = r.st.Usage.CostUSD
	r.setPhase(ctx, terminalPhase(status))
	r.close(ctx, res, released)
	return end(ctx, res)
}

// end returns res the way Temporal records the truth: a completed or
// answered run completes with it, a failed run fails with a PlanFailed
// error carrying it, a cancelled run is cancelled with it as details. The
// SDK turns a returned CanceledError into the cancel command, which the
// server records as WorkflowExecutionCanceled whether or not a
// cancellation was requested, so a selection timeout that cancels ends
// Canceled too.
func end(ctx workflow.Context, res signals.Result) (signals.Result, error) {
	switch res.Status {
	case signals.StatusFailed:
		msg := res.Error
		if msg == "" {
			msg = "plan failed"
		}
		return signals.Result{}, temporal.NewNonRetryableApplicationError(msg, signals.ErrorTypePlanFailed, nil, res)
	case signals.StatusCancelled:
		workflow.GetLogger(ctx).Info("plan cancelled", "error", res.Error)
		return signals.Result{}, temporal.NewCanceledError(res)
	}
	return res, nil
}

// close reports the end of the run and lets running updates (a refine,
// await-options) answer and webhook deliveries start before the workflow
// returns, then waits for the lease's release (released, from
// workspaceLease.release) to be sent; validators refuse new inputs from
// here on.
func (r *run) close(ctx workflow.Context, res signals.Result, released func(workflow.Context)) {
	countPlanFinished(ctx, res.Status)
	r.hooks.end(ctx, res)
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && !r.hooks.delivering() })
	released(ctx)
}

// settleCancelled waits for running steps to see the cancellation, then
// marks everything not done cancelled.
func (r *run) settleCancelled(ctx workflow.Context) {
	r.exec.awaitIdle(ctx)
	r.exec.cancelPending(ctx, "run cancelled", true)
	r.clarify.Waiting = false
	r.sel.waiting = false
}

// summary asks the Summarize activity for the final words; when it fails,
// a plain account stands in.
func (r *run) summary(ctx workflow.Context, status signals.Status) string {
	in := activities.SummarizeInput{
		Goal:    r.st.Goal,
		Status:  string(status),
		Partial: status != signals.StatusCompleted,
		Prompts: r.prompts,
	}
	if r.st.Plan != nil {
		// The prompt shows a bounded digest: sending it, not the plan,
		// keeps this input the same size whatever the plan's length.
		d := r.st.Plan.Digest()
		in.Digest = &d
	}
	out, err := summarize(ctx, in, fmt.Sprintf("summarize %s run", status))
	if err != nil {
		r.noteError(fmt.Sprintf("summarize: %v", err))
		return plainSummary(&r.st, status)
	}
	r.addUsage(out.Usage)
	return out.Summary
}

// plainSummary accounts for the run whose state is st without an LLM.
func plainSummary(st *signals.Checkpoint, status signals.Status) string {
	if st.Plan == nil {
		return fmt.Sprintf("Run %s before a plan was selected: %s", status, st.Goal)
	}
	t := st.Plan.Progress().Totals()
	return fmt.Sprintf("Run %s: %q — %d of %d steps completed, %d failed, %d skipped, %d cancelled.",
		status, st.Plan.Title, t.Completed, t.Total, t.Failed, t.Skipped, t.Cancelled)
}

// planStatus maps a run status to the plan's.
func planStatus(s signals.Status) plan.PlanStatus {
	switch s {
	case signals.StatusCompleted:
		return plan.PlanCompleted
	case signals.StatusCancelled:
		return plan.PlanCancelled
	}
	return plan.PlanFailed
}

// terminalPhase maps a run status to the final phase.
func terminalPhase(s signals.Status) plan.Phase {
	switch s {
	case signals.StatusCompleted, signals.StatusAnswered:
		return plan.PhaseCompleted
	case signals.StatusCancelled:
		return plan.PhaseCancelled
	}
	return plan.PhaseFailed
}
