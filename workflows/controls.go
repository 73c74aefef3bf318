package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// The controls of execution: pause, resume, edit-plan, confirm-skip and
// rollback, each a validator that only reads and a handler that asks the
// owner of what changes to change it.

// controls take what arrives from outside the run: the signals and
// updates people and services send, each validated, then applied by the
// part that owns what it changes (register routes them through the inbox),
// and the queries, answered from a view.Run when asked. They own the
// pause and the inputs refused (signals.InputState).
type controls struct {
	st signals.InputState
	in inbox
	r  *run
	// rollingBack is set while a rollback update runs.
	rollingBack bool
}

// register registers every query, update and signal. It must run before
// the workflow first blocks, so that no early input is lost.
func (c *controls) register(ctx workflow.Context) error {
	return errors.Join(
		c.registerQueries(ctx),
		listen(&c.in, ctx, signals.SelectOption, ignoreCtx(c.validateSelect), c.selectOption),
		listen(&c.in, ctx, signals.RefinePlan, ignoreCtx(c.validateRefine), c.refine),
		listen(&c.in, ctx, signals.AnswerClarification, ignoreCtx(c.validateAnswers), c.answer),
		listen(&c.in, ctx, signals.ConfirmSkip, ignoreCtx(c.validateConfirm), c.confirm),
		listen(&c.in, ctx, signals.EditPlan, c.validateEdit, c.edit),
		listen(&c.in, ctx, signals.Pause, ignoreCtx(c.validatePause), c.pause),
		listen(&c.in, ctx, signals.Resume, ignoreCtx(c.validateResume), c.resume),
		listen(&c.in, ctx, signals.ApproveToolCall, ignoreCtx(c.r.gate.validateApprove), c.r.gate.approve),
		listen(&c.in, ctx, signals.DenyToolCall, ignoreCtx(c.r.gate.validateDeny), c.r.gate.deny),
		// Rollback is an update only: the caller needs the files it
		// restored, and a fire-and-forget rollback would be unsafe.
		signals.Rollback.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.rollback), ignoreCtx(c.validateRollback)),
		// Raise-budget is an update only: the caller needs to know
		// whether the caps were taken and the plan resumed.
		signals.RaiseBudget.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.raiseBudget), ignoreCtx(c.validateRaise)),
		// Await-options is an update only: it exists to answer a caller
		// that starts a run and waits for its options in one call.
		signals.AwaitOptions.SetUpdateHandler(ctx, carryHeartbeat(ctx, c.awaitOptions), ignoreCtx(c.validateAwaitOptions)),
	)
}

// registerQueries registers the read-only queries. Each computes its
// answer from a view of the run when it is asked, never before.
func (c *controls) registerQueries(ctx workflow.Context) error {
	r := c.r
	progress := func() (signals.Progress, error) { return view.Progress(r.view(), workflow.Now(ctx)), nil }
	if err := signals.ProgressQuery.SetHandler(ctx, progress); err != nil {
		return err
	}
	if err := signals.PlanQuery.SetHandler(ctx, func() (signals.PlanView, error) { return view.Plan(r.view()), nil }); err != nil {
		return err
	}
	if err := signals.OptionsQuery.SetHandler(ctx, func() (signals.OptionsView, error) { return r.st.Options, nil }); err != nil {
		return err
	}
	return signals.PendingQuery.SetHandler(ctx, func() (signals.Pending, error) { return view.Pending(r.view()), nil })
}

// finishing reports whether the run is summarizing or over, when no
// control input applies any more.
func (c *controls) finishing() bool {
	ph := c.r.st.Phase
	return ph == plan.PhaseSummarizing || ph.Terminal()
}

// validatePause refuses to pause a paused or finishing run.
func (c *controls) validatePause(req signals.ControlRequest) error {
	switch {
	case c.finishing():
		return reject(signals.ErrorTypeWrongPhase, "cannot pause: the run is %s", c.r.st.Phase)
	case c.st.Paused:
		return reject(signals.ErrorTypeWrongPhase, "already paused")
	}
	return tooLong("reason", req.Reason)
}

// pause stops the run at the next step boundary: running steps finish,
// no new one starts.
func (c *controls) pause(ctx workflow.Context, req signals.ControlRequest) (signals.ControlState, error) {
	r := c.r
	reason := req.Reason
	if req.By != "" {
		reason = fmt.Sprintf("%s (by %s)", orDash(req.Reason), req.By)
	}
	c.setPaused(ctx, true, reason)
	r.publish(ctx)
	r.hooks.change(ctx, activities.EventPaused, "paused: "+orDash(req.Reason), nil)
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
	r := c.r
	c.setPaused(ctx, false, req.Reason)
	r.exec.waiveBudget()
	r.publish(ctx)
	r.hooks.change(ctx, activities.EventResumed, "resumed: "+orDash(req.Reason), nil)
	return c.controlState(), nil
}

// controlState answers pause and resume.
func (c *controls) controlState() signals.ControlState {
	return signals.ControlState{Phase: c.r.st.Phase, Mode: view.Mode(c.r.view()), Paused: c.st.Paused, Reason: c.st.PauseReason}
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

// validateEdit dry-runs the edits on a clone of the plan; it refuses edits
// before a plan is selected, once the run is finishing and beyond the edit
// bounds. The dry run needs no clock: only whether the edits apply counts.
func (c *controls) validateEdit(_ workflow.Context, req signals.EditPlanRequest) error {
	r := c.r
	switch {
	case r.st.Plan == nil:
		return reject(signals.ErrorTypeWrongPhase, "no plan selected yet")
	case c.finishing():
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: the run is %s", r.st.Phase)
	case r.exec.halted():
		// No step starts any more: a step added now would stay pending
		// in the finished plan.
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: execution is stopping (%s)", r.exec.haltReason())
	case len(req.Edits) == 0:
		return reject(signals.ErrorTypeInvalidEdit, "no edits")
	}
	if err := editTooLarge(req); err != nil {
		return err
	}
	dry := plan.Change{Actor: signals.Caller(req.By), Reason: req.Reason, Within: r.lim}
	if _, err := tryChange(r.st.Plan, r.lim, func(p *plan.Plan) error { return p.Apply(req.Edits, dry) }); err != nil {
		return reject(signals.ErrorTypeInvalidEdit, "edit: %v", err)
	}
	return nil
}

// edit applies a person's edits, all or nothing, on the caller's behalf,
// and answers the new version.
func (c *controls) edit(ctx workflow.Context, req signals.EditPlanRequest) (signals.EditPlanResponse, error) {
	r := c.r
	if err := c.validateEdit(ctx, req); err != nil {
		return signals.EditPlanResponse{}, err
	}
	change := plan.Change{Actor: signals.Caller(req.By), Reason: req.Reason, At: workflow.Now(ctx), Within: r.lim}
	if err := r.exec.changePlan(ctx, func(p *plan.Plan) error { return p.Apply(req.Edits, change) }); err != nil {
		return signals.EditPlanResponse{}, fmt.Errorf("edit: %w", err)
	}
	r.publish(ctx)
	r.hooks.change(ctx, activities.EventPlanUpdated, fmt.Sprintf("plan version %d: edited: %s", r.st.Plan.Version, orDash(req.Reason)), nil)
	return signals.EditPlanResponse{Version: r.st.Plan.Version, Plan: *r.st.Plan}, nil
}

// validateConfirm accepts answers to pending skip requests only.
func (c *controls) validateConfirm(req signals.ConfirmSkipRequest) error {
	if err := tooLong("note", req.Note); err != nil {
		return err
	}
	k := c.r.exec.skips
	if _, ok := k.pending(req.RequestID); ok {
		return nil
	}
	ids := make([]string, 0, len(c.r.st.SkipConfirmations))
	for _, sc := range c.r.st.SkipConfirmations {
		ans, answered := k.answers[sc.RequestID]
		if sc.RequestID == req.RequestID {
			// Answered in this workflow task, not settled yet.
			return reject(signals.ErrorTypeWrongPhase, "skip request %q is already answered (%s)", sc.RequestID, approvedWord(ans.approve))
		}
		if !answered {
			ids = append(ids, sc.RequestID)
		}
	}
	if len(ids) == 0 {
		return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q: no skip confirmation is pending", req.RequestID)
	}
	return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q (pending: %s)", req.RequestID, strings.Join(ids, ", "))
}

// confirm answers a pending skip request.
func (c *controls) confirm(_ workflow.Context, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error) {
	k := c.r.exec.skips
	sc, ok := k.pending(req.RequestID)
	if !ok {
		return signals.ConfirmSkipResponse{}, c.validateConfirm(req)
	}
	who := string(signals.Caller(req.By))
	ans := skipAnswer{approve: req.Approve, byUser: true, by: req.By, note: "confirmed by " + who}
	if !req.Approve {
		ans.note = "denied by " + who
	}
	if req.Note != "" {
		ans.note += ": " + req.Note
	}
	k.answer(sc.RequestID, ans)
	return signals.ConfirmSkipResponse{RequestID: sc.RequestID, Approved: ans.approve, StepIDs: sc.StepIDs}, nil
}

// approvedWord names a confirmation's answer.
func approvedWord(approve bool) string {
	if approve {
		return "approved"
	}
	return "denied"
}

// validateRollback allows a rollback once execution started, while the
// run is still open, when a snapshot exists and no rollback is running.
func (c *controls) validateRollback(req signals.RollbackRequest) error {
	st := &c.r.st
	switch {
	case !c.r.exec.started:
		return reject(signals.ErrorTypeWrongPhase, "rollback is possible once execution has started (phase %s)", st.Phase)
	case st.SnapshotID == "":
		return reject(signals.ErrorTypeWrongPhase, "no workspace snapshot: the run has no workspace")
	case c.rollingBack:
		return reject(signals.ErrorTypeBusy, "a rollback is already running")
	case st.Phase.Terminal():
		return reject(signals.ErrorTypeWrongPhase, "the run is %s", st.Phase)
	case c.r.ending:
		// The run gives its workspace back while it summarizes.
		return reject(signals.ErrorTypeWrongPhase, "the run is ending (phase %s): roll back once it has ended", st.Phase)
	}
	if _, err := c.rollbackTarget(req); err != nil {
		return reject(signals.ErrorTypeInvalidRequest, "%v", err)
	}
	return nil
}

// rollbackTarget is the snapshot or manifest a rollback restores: the
// files before execution, or after step req.StepID.
func (c *controls) rollbackTarget(req signals.RollbackRequest) (string, error) {
	if req.StepID == "" {
		return c.r.st.SnapshotID, nil
	}
	s := c.r.exec.step(req.StepID)
	switch {
	case s == nil:
		return "", fmt.Errorf("rollback: the plan has no step %q", req.StepID)
	case s.Result == nil || s.Result.Manifest == "":
		return "", fmt.Errorf("rollback: step %s (%s) has no recorded files", req.StepID, s.Status)
	}
	return s.Result.Manifest, nil
}

// rollback restores the workspace as it was before execution, or after a
// step, and makes those the plan's files: the steps that run next start
// from them. Steps keep their recorded results; the answer lists what
// came back.
func (c *controls) rollback(ctx workflow.Context, req signals.RollbackRequest) (signals.RollbackResponse, error) {
	c.rollingBack = true
	defer func() { c.rollingBack = false }()
	target, err := c.rollbackTarget(req)
	if err != nil {
		return signals.RollbackResponse{}, err
	}
	r := c.r
	if r.st.Manifest != "" {
		if err := r.exec.files.lock(ctx); err != nil {
			return signals.RollbackResponse{}, err
		}
		defer r.exec.files.mu.Unlock()
	}
	in := activities.RestoreInput{SnapshotID: target, Workspace: r.req.Workspace}
	out, err := restoreWorkspace(ctx, in, "rollback workspace")
	if err != nil {
		return signals.RollbackResponse{}, fmt.Errorf("rollback: %w", err)
	}
	if r.st.Manifest != "" {
		r.st.Manifest = target
	}
	return signals.RollbackResponse{Restored: out.Restored, Removed: out.Removed}, nil
}

// orDash is s, or a dash when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
