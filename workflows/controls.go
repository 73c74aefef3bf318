package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// controls take what arrives from outside the run: the signals and
// updates people and services send, each routed (register) through the
// inbox to the part that owns what it changes, which validates it,
// reading only, and applies it; and the queries, answered from a view.Run
// when asked. They own the pause, with its inputs pause and resume, and
// the inputs refused (signals.InputState).
type controls struct {
	st  signals.InputState
	in  inbox
	run controlRun
	log eventLog
	owners
}

// controlRun is what the controls ask of the run: to show a change
// (publish), the run as the queries read it, and its phase.
type controlRun interface {
	publish(ctx workflow.Context)
	view() view.Run
	phase() plan.Phase
}

// owners are the parts that own what the inputs change, as the controls
// route to them.
type owners struct {
	selection selectionInputs
	answers   answerInputs
	skips     skipInputs
	plan      planInputs
	approvals approvalInputs
	budget    budgetInputs
}

// selectionInputs answer select-option, refine-plan and await-options
// (the cycle's selection).
type selectionInputs interface {
	validateSelect(req signals.SelectOptionRequest) error
	selectOption(ctx workflow.Context, req signals.SelectOptionRequest) (signals.SelectOptionResponse, error)
	validateRefine(req signals.RefinePlanRequest) error
	refine(ctx workflow.Context, req signals.RefinePlanRequest) (signals.OptionsView, error)
	validateAwaitOptions(req signals.AwaitOptionsRequest) error
	awaitOptions(ctx workflow.Context, req signals.AwaitOptionsRequest) (signals.OptionsView, error)
}

// answerInputs answer answer-clarification (the cycle's clarification).
type answerInputs interface {
	validateAnswers(req signals.AnswerClarificationRequest) error
	answer(ctx workflow.Context, req signals.AnswerClarificationRequest) (signals.ClarificationResponse, error)
}

// skipInputs answer confirm-skip (the executor's confirmations).
type skipInputs interface {
	validateConfirm(req signals.ConfirmSkipRequest) error
	confirm(ctx workflow.Context, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error)
}

// planInputs answer edit-plan and rollback (the executor).
type planInputs interface {
	validateEdit(ctx workflow.Context, req signals.EditPlanRequest) error
	edit(ctx workflow.Context, req signals.EditPlanRequest) (signals.EditPlanResponse, error)
	validateRollback(req signals.RollbackRequest) error
	rollback(ctx workflow.Context, req signals.RollbackRequest) (signals.RollbackResponse, error)
}

// approvalInputs answer approve-tool-call and deny-tool-call (the gate).
type approvalInputs interface {
	validateApprove(req signals.ApproveToolCallRequest) error
	approve(ctx workflow.Context, req signals.ApproveToolCallRequest) (signals.ApprovalDecision, error)
	validateDeny(req signals.DenyToolCallRequest) error
	deny(ctx workflow.Context, req signals.DenyToolCallRequest) (signals.ApprovalDecision, error)
}

// budgetInputs answer raise-budget and waive the budget when a person
// resumes the run (the executor's budget).
type budgetInputs interface {
	validateRaise(req signals.RaiseBudgetRequest) error
	raise(ctx workflow.Context, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error)
	waive()
}

// register registers every query, update and signal. It must run before
// the workflow first blocks, so that no early input is lost.
func (c *controls) register(ctx workflow.Context) error {
	return errors.Join(
		c.registerQueries(ctx),
		listen(&c.in, ctx, signals.SelectOption, ignoreCtx(c.selection.validateSelect), c.selection.selectOption),
		listen(&c.in, ctx, signals.RefinePlan, ignoreCtx(c.selection.validateRefine), c.selection.refine),
		listen(&c.in, ctx, signals.AnswerClarification, ignoreCtx(c.answers.validateAnswers), c.answers.answer),
		listen(&c.in, ctx, signals.ConfirmSkip, ignoreCtx(c.skips.validateConfirm), c.skips.confirm),
		listen(&c.in, ctx, signals.EditPlan, c.plan.validateEdit, c.plan.edit),
		listen(&c.in, ctx, signals.Pause, ignoreCtx(c.validatePause), c.pause),
		listen(&c.in, ctx, signals.Resume, ignoreCtx(c.validateResume), c.resume),
		listen(&c.in, ctx, signals.ApproveToolCall, ignoreCtx(c.approvals.validateApprove), c.approvals.approve),
		listen(&c.in, ctx, signals.DenyToolCall, ignoreCtx(c.approvals.validateDeny), c.approvals.deny),
		// Rollback is an update only: the caller needs the files it
		// restored, and a fire-and-forget rollback would be unsafe.
		signals.Rollback.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.plan.rollback), ignoreCtx(c.plan.validateRollback)),
		// Raise-budget is an update only: the caller needs to know
		// whether the caps were taken and the plan resumed.
		signals.RaiseBudget.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.budget.raise), ignoreCtx(c.budget.validateRaise)),
		// Await-options is an update only: it exists to answer a caller
		// that starts a run and waits for its options in one call.
		signals.AwaitOptions.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.selection.awaitOptions), ignoreCtx(c.selection.validateAwaitOptions)),
	)
}

// registerQueries registers the read-only queries. Each computes its
// answer from a view of the run when it is asked, never before.
func (c *controls) registerQueries(ctx workflow.Context) error {
	r := c.run
	progress := func() (signals.Progress, error) { return view.Progress(r.view(), workflow.Now(ctx)), nil }
	if err := signals.ProgressQuery.SetHandler(ctx, progress); err != nil {
		return err
	}
	if err := signals.PlanQuery.SetHandler(ctx, func() (signals.PlanView, error) { return view.Plan(r.view()), nil }); err != nil {
		return err
	}
	if err := signals.OptionsQuery.SetHandler(ctx, func() (signals.OptionsView, error) { return r.view().State.Options, nil }); err != nil {
		return err
	}
	return signals.PendingQuery.SetHandler(ctx, func() (signals.Pending, error) { return view.Pending(r.view()), nil })
}

// validatePause refuses to pause a paused or finishing run.
func (c *controls) validatePause(req signals.ControlRequest) error {
	switch ph := c.run.phase(); {
	case finishing(ph):
		return reject(signals.ErrorTypeWrongPhase, "cannot pause: the run is %s", ph)
	case c.st.Paused:
		return reject(signals.ErrorTypeWrongPhase, "already paused")
	}
	return tooLong("reason", req.Reason)
}

// pause stops the run at the next step boundary: running steps finish,
// no new one starts.
func (c *controls) pause(ctx workflow.Context, req signals.ControlRequest) (signals.ControlState, error) {
	reason := req.Reason
	if req.By != "" {
		reason = fmt.Sprintf("%s (by %s)", orDash(req.Reason), req.By)
	}
	c.setPaused(ctx, true, reason)
	c.run.publish(ctx)
	c.log.record(ctx, signals.EventPaused, nil, "paused: "+orDash(req.Reason), byReason{By: string(signals.Caller(req.By)), Reason: req.Reason})
	return c.controlState(), nil
}

// validateResume refuses to resume a run that is not paused.
func (c *controls) validateResume(req signals.ControlRequest) error {
	if !c.st.Paused {
		return reject(signals.ErrorTypeWrongPhase, "not paused")
	}
	return tooLong("reason", req.Reason)
}

// resume lets a paused run go on. Resuming after a budget pause waives the
// budget for the rest of the run.
func (c *controls) resume(ctx workflow.Context, req signals.ControlRequest) (signals.ControlState, error) {
	c.setPaused(ctx, false, req.Reason)
	c.budget.waive()
	c.run.publish(ctx)
	c.log.record(ctx, signals.EventResumed, nil, "resumed: "+orDash(req.Reason), byReason{By: string(signals.Caller(req.By)), Reason: req.Reason})
	return c.controlState(), nil
}

// controlState answers pause and resume.
func (c *controls) controlState() signals.ControlState {
	return signals.ControlState{Phase: c.run.phase(), Mode: view.Mode(c.run.view()), Paused: c.st.Paused, Reason: c.st.PauseReason}
}

// setPaused pauses or resumes the run for reason and keeps the paused
// time: the progress query reports running time and paused time apart.
// It does not publish: the callers do once they are done.
func (c *controls) setPaused(ctx workflow.Context, paused bool, reason string) {
	now := workflow.Now(ctx)
	if c.st.PausedAt != nil {
		c.st.PausedFor += plan.Duration(now.Sub(*c.st.PausedAt))
		c.st.PausedAt = nil
	}
	if paused {
		c.st.PausedAt = &now
	}
	c.st.Paused = paused
	c.st.PauseReason = reason
}

// paused reports whether the run is paused.
func (c *controls) paused() bool {
	return c.st.Paused
}

// lift lifts a pause at the run's end, when nothing is left to hold: the
// paused time stops counting, the reason stays.
func (c *controls) lift(ctx workflow.Context) {
	c.setPaused(ctx, false, c.st.PauseReason)
}

// orDash is s, or a dash when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
