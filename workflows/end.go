package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// end ends the run with status (and runErr, its reason when it did not
// complete) and returns its Result the way Temporal records it
// (returned). It first settles the steps (executor.settle): a run whose
// deadline passed fails with the deadline's reason, and a cancelled run
// waits for its running steps to see the cancellation and does the rest
// in a disconnected context, so the summary is still written. Then it
// lifts a pause, asks for a summary (a partial one unless completed)
// while the lease goes back, and reports the end (report).
func (r *run) end(ctx workflow.Context, status signals.Status, runErr error) (signals.Result, error) {
	r.isEnding = true
	why := ""
	switch {
	case ctx.Err() == nil && r.passed != "":
		// The deadline cancelled the work, not the run: it fails.
		status, runErr, why = signals.StatusFailed, errors.New(r.passed), r.passed
	case ctx.Err() != nil:
		status, why = signals.StatusCancelled, "run cancelled"
		ctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	r.exec.settle(ctx, why)
	r.ctl.lift(ctx)
	r.setPhase(ctx, plan.PhaseSummarizing)
	res := signals.Result{
		Status:           status,
		SelectedOptionID: r.st.Options.SelectedID,
		Plan:             r.exec.final(ctx, status),
		BudgetExceeded:   r.exec.stop.budgetExceeded(),
		Offline:          r.st.Offline,
		SnapshotID:       r.st.SnapshotID,
		Workspace:        r.req.Workspace,
		Manifest:         r.exec.st.Manifest,
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
	_ = workflow.Await(ctx, func() bool { return !r.exec.rollingBack })
	released := r.lease.release(ctx)
	res.Summary = r.summary(ctx, status)
	if res.Plan != nil {
		res.Metrics = res.Plan.Progress().Metrics()
		// Only the Result carries it, not the state: replay compares
		// no payload of the completion, so it needs no version.
		res.Metrics.MaxConcurrent = r.exec.st.MaxConcurrent
	}
	res.Usage = r.st.Usage
	res.Tokens = r.st.Usage.TotalTokens
	res.CostUSD = r.st.Usage.CostUSD
	r.stamp(ctx, &res)
	r.setPhase(ctx, status.Phase())
	r.report(ctx, res, released)
	return returned(ctx, res)
}

// endAnswered ends a run that clarification answered outright: its
// Result is the answer. A pause asked for before execution has nothing
// left to hold.
func (r *run) endAnswered(ctx workflow.Context, answer string) (signals.Result, error) {
	res := signals.Result{
		Status:  signals.StatusAnswered,
		Summary: answer,
		Usage:   r.st.Usage,
		Tokens:  r.st.Usage.TotalTokens,
		CostUSD: r.st.Usage.CostUSD,
		Offline: r.st.Offline,
	}
	r.ctl.lift(ctx)
	r.stamp(ctx, &res)
	r.setPhase(ctx, plan.PhaseCompleted)
	r.report(ctx, res, r.lease.release(ctx))
	return returned(ctx, res)
}

// returned is res the way Temporal records the truth: a completed or
// answered run completes with it, a failed run fails with a PlanFailed
// error carrying it, a cancelled run is cancelled with it as details. The
// SDK turns a returned CanceledError into the cancel command, which the
// server records as WorkflowExecutionCanceled whether or not a
// cancellation was requested, so a selection timeout that cancels ends
// Canceled too.
func returned(ctx workflow.Context, res signals.Result) (signals.Result, error) {
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

// report reports the end of the run and lets running updates (a refine,
// await-options) answer and webhook deliveries start before the workflow
// returns, then waits for the lease's release (released, from
// workspaceLease.release) to be sent; validators refuse new inputs from
// here on.
func (r *run) report(ctx workflow.Context, res signals.Result, released func(workflow.Context)) {
	countPlanFinished(ctx, res.Status)
	r.log.record(ctx, signals.EventEnded, nil, fmt.Sprintf("run %s", res.Status),
		activities.NotifyData{Status: res.Status, Summary: res.Summary, Error: res.Error})
	_ = workflow.Await(ctx, func() bool {
		return workflow.AllHandlersFinished(ctx) && !r.hooks.delivering() && r.log.written()
	})
	released(ctx)
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
	if p := r.exec.plan(); p != nil {
		// The prompt shows a bounded digest: sending it, not the plan,
		// keeps this input the same size whatever the plan's length.
		d := p.Digest()
		in.Digest = &d
	}
	out, err := summarize(ctx, in, fmt.Sprintf("summarize %s run", status))
	if err != nil {
		r.noteError(fmt.Sprintf("summarize: %v", err))
		return plainSummary(r.st.Goal, r.exec.plan(), status)
	}
	r.addUsage(ctx, activities.PhaseSummarize, out.Usage)
	return out.Summary
}

// plainSummary accounts for a run towards goal with plan p (nil: none
// was selected) without an LLM.
func plainSummary(goal string, p *plan.Plan, status signals.Status) string {
	if p == nil {
		return fmt.Sprintf("Run %s before a plan was selected: %s", status, goal)
	}
	t := p.Progress().Totals()
	return fmt.Sprintf("Run %s: %q — %d of %d steps completed, %d failed, %d skipped, %d cancelled.",
		status, p.Title, t.Completed, t.Total, t.Failed, t.Skipped, t.Cancelled)
}

// stamp writes when the plan started and how long it ran into res, as
// its progress query tells them, so that its progress can be read from
// the Result once it has closed (signals.Result.Progress).
func (r *run) stamp(ctx workflow.Context, res *signals.Result) {
	p := view.Progress(r.view(), workflow.Now(ctx))
	res.StartedAt, res.Elapsed, res.PausedFor = &p.StartedAt, p.Elapsed, p.PausedFor
}
