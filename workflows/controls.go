package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// finishing reports whether the run is summarizing or over, when no
// control input applies any more.
func (r *run) finishing() bool {
	return r.st.Phase == plan.PhaseSummarizing || r.st.Phase.Terminal()
}

// validatePause refuses to pause a paused or finishing run.
func (r *run) validatePause(req signals.ControlRequest) error {
	switch {
	case r.finishing():
		return reject(signals.ErrorTypeWrongPhase, "cannot pause: the run is %s", r.st.Phase)
	case r.st.Paused:
		return reject(signals.ErrorTypeWrongPhase, "already paused")
	}
	return tooLong("reason", req.Reason)
}

// pause stops the run at the next step boundary: running steps finish,
// no new one starts.
func (r *run) pause(ctx workflow.Context, req signals.ControlRequest) (signals.ControlState, error) {
	r.setPaused(ctx, true)
	r.st.PauseReason = req.Reason
	if req.By != "" {
		r.st.PauseReason = fmt.Sprintf("%s (by %s)", orDash(req.Reason), req.By)
	}
	r.publish(ctx)
	r.notifyChange(ctx, activities.EventPaused, "paused: "+orDash(req.Reason), nil)
	return r.controlState(), nil
}

// validateResume refuses to resume a run that is not paused.
func (r *run) validateResume(req signals.ControlRequest) error {
	if !r.st.Paused {
		return reject(signals.ErrorTypeWrongPhase, "not paused")
	}
	return tooLong("reason", req.Reason)
}

// resume lets a paused run go on. Resuming after a budget pause waives the
// budget for the rest of the run.
func (r *run) resume(ctx workflow.Context, req signals.ControlRequest) (signals.ControlState, error) {
	r.setPaused(ctx, false)
	r.st.PauseReason = req.Reason
	if r.exec.budgetPaused {
		r.exec.budgetPaused = false
		r.st.BudgetWaived = true
	}
	r.publish(ctx)
	r.notifyChange(ctx, activities.EventResumed, "resumed: "+orDash(req.Reason), nil)
	return r.controlState(), nil
}

// controlState answers pause and resume.
func (r *run) controlState() signals.ControlState {
	return signals.ControlState{Phase: r.st.Phase, Mode: r.mode(), Paused: r.st.Paused, Reason: r.st.PauseReason}
}

// userChange is the change record of a person's (or a service's) edit,
// on behalf of the caller the request names.
func (r *run) userChange(ctx workflow.Context, by, reason string) plan.Change {
	return plan.Change{Actor: signals.Caller(by), Reason: reason, At: workflow.Now(ctx), Within: r.limits()}
}

// validateEdit dry-runs the edits on a clone of the plan; it refuses edits
// before a plan is selected, once the run is finishing and beyond the edit
// bounds. The dry run needs no clock: only whether the edits apply counts.
func (r *run) validateEdit(_ workflow.Context, req signals.EditPlanRequest) error {
	switch {
	case r.st.Plan == nil:
		return reject(signals.ErrorTypeWrongPhase, "no plan selected yet")
	case r.finishing():
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: the run is %s", r.st.Phase)
	case r.halted():
		// No step starts any more: a step added now would stay pending
		// in the finished plan.
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: execution is stopping (%s)", r.haltReason())
	case len(req.Edits) == 0:
		return reject(signals.ErrorTypeInvalidEdit, "no edits")
	}
	if err := editTooLarge(req); err != nil {
		return err
	}
	dry := plan.Change{Actor: signals.Caller(req.By), Reason: req.Reason, Within: r.limits()}
	if _, err := r.tryChange(func(p *plan.Plan) error { return p.Apply(req.Edits, dry) }); err != nil {
		return reject(signals.ErrorTypeInvalidEdit, "edit: %v", err)
	}
	return nil
}

// edit applies a person's edits, all or nothing, and answers the new
// version.
func (r *run) edit(ctx workflow.Context, req signals.EditPlanRequest) (signals.EditPlanResponse, error) {
	if err := r.validateEdit(ctx, req); err != nil {
		return signals.EditPlanResponse{}, err
	}
	if err := r.changePlan(func(p *plan.Plan) error { return p.Apply(req.Edits, r.userChange(ctx, req.By, req.Reason)) }); err != nil {
		return signals.EditPlanResponse{}, fmt.Errorf("edit: %w", err)
	}
	r.publish(ctx)
	r.notifyChange(ctx, activities.EventPlanUpdated, fmt.Sprintf("plan version %d: edited: %s", r.st.Plan.Version, orDash(req.Reason)), nil)
	return signals.EditPlanResponse{Version: r.st.Plan.Version, Plan: *r.st.Plan}, nil
}

// validateRollback allows a rollback once execution started, while the
// run is still open, when a snapshot exists and no rollback is running.
func (r *run) validateRollback(signals.RollbackRequest) error {
	switch {
	case !r.exec.started:
		return reject(signals.ErrorTypeWrongPhase, "rollback is possible once execution has started (phase %s)", r.st.Phase)
	case r.st.SnapshotID == "":
		return reject(signals.ErrorTypeWrongPhase, "no workspace snapshot: the run has no workspace")
	case r.exec.rollingBack:
		return reject(signals.ErrorTypeBusy, "a rollback is already running")
	case r.st.Phase.Terminal():
		return reject(signals.ErrorTypeWrongPhase, "the run is %s", r.st.Phase)
	}
	return nil
}

// rollback restores the workspace as it was before execution. Steps keep
// their recorded results; the answer lists what came back.
func (r *run) rollback(ctx workflow.Context, _ signals.RollbackRequest) (signals.RollbackResponse, error) {
	r.exec.rollingBack = true
	defer func() { r.exec.rollingBack = false }()
	out, err := restoreWorkspace(ctx, activities.RestoreInput{SnapshotID: r.st.SnapshotID, Workspace: r.req.Workspace}, "rollback workspace")
	if err != nil {
		return signals.RollbackResponse{}, fmt.Errorf("rollback: %w", err)
	}
	return signals.RollbackResponse{Restored: out.Restored, Removed: out.Removed}, nil
}

// cancelPending marks every pending step cancelled with a note, and the
// running ones too when running is set (the run itself was cancelled).
func (r *run) cancelPending(ctx workflow.Context, note string, running bool) {
	if r.st.Plan == nil {
		return
	}
	var ids []string
	for _, s := range r.st.Plan.Steps {
		active := s.Status == plan.StepRunning || s.Status == plan.StepRetrying
		if s.Status == plan.StepPending || (running && active) {
			ids = append(ids, s.ID)
		}
	}
	r.markCancelled(ctx, ids, note)
}

// markCancelled sets steps cancelled with a note. Cancelling is not a plan
// edit (no version, no history): it records why work did not happen.
func (r *run) markCancelled(ctx workflow.Context, ids []string, note string) {
	if len(ids) == 0 {
		return
	}
	now := workflow.Now(ctx)
	for _, id := range ids {
		if s := r.st.Plan.StepByID(id); s != nil {
			s.Status = plan.StepCancelled
			s.Note = note
			s.EndedAt = &now
		}
	}
	workflow.GetLogger(ctx).Info("steps cancelled", "steps", strings.Join(ids, ","), "reason", note)
}
