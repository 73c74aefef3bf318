package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The executor's inputs: edit-plan, and rollback while the run is open.
// Each is a validator that only reads and a handler that changes what the
// executor owns.

// validateEdit dry-runs the edits on a clone of the plan; it refuses edits
// before a plan is selected, once the run is finishing and beyond the edit
// bounds. The dry run needs no clock: only whether the edits apply counts.
func (e *executor) validateEdit(_ workflow.Context, req signals.EditPlanRequest) error {
	switch ph := e.run.phase(); {
	case e.st.Plan == nil:
		return reject(signals.ErrorTypeWrongPhase, "no plan selected yet")
	case finishing(ph):
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: the run is %s", ph)
	case e.stop.set():
		// No step starts any more: a step added now would stay pending
		// in the finished plan.
		return reject(signals.ErrorTypeWrongPhase, "cannot edit: execution is stopping (%s)", e.stop.why())
	case len(req.Edits) == 0:
		return reject(signals.ErrorTypeInvalidEdit, "no edits")
	}
	if err := editTooLarge(req); err != nil {
		return err
	}
	lim := e.run.limits()
	dry := plan.Change{Actor: signals.Caller(req.By), Reason: req.Reason, Within: lim}
	if _, err := tryChange(e.st.Plan, lim, func(p *plan.Plan) error { return p.Apply(req.Edits, dry) }); err != nil {
		return reject(signals.ErrorTypeInvalidEdit, "edit: %v", err)
	}
	return nil
}

// edit applies a person's edits, all or nothing, on the caller's behalf,
// and answers the new version.
func (e *executor) edit(ctx workflow.Context, req signals.EditPlanRequest) (signals.EditPlanResponse, error) {
	if err := e.validateEdit(ctx, req); err != nil {
		return signals.EditPlanResponse{}, err
	}
	change := plan.Change{Actor: signals.Caller(req.By), Reason: req.Reason, At: workflow.Now(ctx), Within: e.run.limits()}
	if err := e.changePlan(ctx, func(p *plan.Plan) error { return p.Apply(req.Edits, change) }); err != nil {
		return signals.EditPlanResponse{}, fmt.Errorf("edit: %w", err)
	}
	e.run.publish(ctx)
	e.log.record(ctx, signals.EventPlanUpdated, nil, fmt.Sprintf("plan version %d: edited: %s", e.st.Plan.Version, orDash(req.Reason)),
		planUpdated{Version: e.st.Plan.Version, By: string(change.Actor), Reason: req.Reason})
	return signals.EditPlanResponse{Version: e.st.Plan.Version, Plan: *e.st.Plan}, nil
}

// validateRollback allows a rollback once execution started, while the
// run is still open, when a snapshot exists and no rollback is running.
func (e *executor) validateRollback(req signals.RollbackRequest) error {
	switch ph := e.run.phase(); {
	case !e.started:
		return reject(signals.ErrorTypeWrongPhase, "rollback is possible once execution has started (phase %s)", ph)
	case e.run.snapshotID() == "":
		return reject(signals.ErrorTypeWrongPhase, "no workspace snapshot: the run has no workspace")
	case e.rollingBack:
		return reject(signals.ErrorTypeBusy, "a rollback is already running")
	case ph.Terminal():
		return reject(signals.ErrorTypeWrongPhase, "the run is %s", ph)
	case e.run.ending():
		// The run gives its workspace back while it summarizes.
		return reject(signals.ErrorTypeWrongPhase, "the run is ending (phase %s): roll back once it has ended", ph)
	}
	if _, err := e.rollbackTarget(req); err != nil {
		return reject(signals.ErrorTypeInvalidRequest, "%v", err)
	}
	return nil
}

// rollbackTarget is the snapshot or manifest a rollback restores: the
// files before execution, or after step req.StepID.
func (e *executor) rollbackTarget(req signals.RollbackRequest) (string, error) {
	if req.StepID == "" {
		return e.run.snapshotID(), nil
	}
	s := e.step(req.StepID)
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
func (e *executor) rollback(ctx workflow.Context, req signals.RollbackRequest) (signals.RollbackResponse, error) {
	e.rollingBack = true
	defer func() { e.rollingBack = false }()
	target, err := e.rollbackTarget(req)
	if err != nil {
		return signals.RollbackResponse{}, err
	}
	out, err := e.files.restore(ctx, target)
	if err != nil {
		return signals.RollbackResponse{}, err
	}
	return signals.RollbackResponse{Restored: out.Restored, Removed: out.Removed}, nil
}
