package signals

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
)

// RollbackWorkflowType is the workflow that restores the workspace of a
// plan that has ended (completed, failed or cancelled): a closed plan
// takes no update, so the rollback runs beside it. Start it with the id
// RollbackWorkflowID(planID, n) and a [RollbackPlanRequest]; it returns a
// [RollbackPlanResult]. An open plan is rolled back by its own rollback
// update instead.
const RollbackWorkflowType = "PlanRollback"

// ErrorTypeWorkspaceChanged is the application error type of a
// PlanRollback refused because files of the workspace changed after the
// plan ended; the message names them and the first detail is the
// RollbackPlanResult with ChangedSince. Force restores anyway.
const ErrorTypeWorkspaceChanged = "WorkspaceChanged"

// MaxRollbacksPerPlan bounds the PlanRollback runs one plan may have
// (ids <planID>-rollback-1 … -MaxRollbacksPerPlan), so that finding the
// next free id stays cheap.
const MaxRollbacksPerPlan = 100

// maxPlanIDBytes bounds a plan id a rollback names: Temporal's own bound
// on workflow ids (1000 bytes by default), less room for the suffix.
const maxPlanIDBytes = 960

// RollbackWorkflowID is the id of the n-th PlanRollback of plan planID:
// "<planID>-rollback-<n>", n from 1.
func RollbackWorkflowID(planID string, n int) string {
	return fmt.Sprintf("%s-rollback-%d", planID, n)
}

// RollbackPlanRequest is the PlanRollback workflow's input.
type RollbackPlanRequest struct {
	// PlanID is the workflow id of the ended plan.
	PlanID string `json:"planId"`
	// StepID, when set, restores the files as they were after that step
	// rather than before execution.
	StepID string `json:"stepId,omitempty"`
	// Force restores even when files changed after the plan ended; those
	// changes are lost.
	Force bool `json:"force,omitempty"`
}

// Validate refuses an empty or oversized plan id.
func (r RollbackPlanRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.PlanID) == "":
		return fmt.Errorf("invalid rollback request: planId is required")
	case len(r.PlanID) > maxPlanIDBytes:
		return fmt.Errorf("invalid rollback request: planId is %d bytes: at most %d", len(r.PlanID), maxPlanIDBytes)
	case len(r.StepID) > plan.MaxIDBytes:
		return fmt.Errorf("invalid rollback request: stepId is %d bytes: at most %d", len(r.StepID), plan.MaxIDBytes)
	}
	return nil
}

// RollbackPlanResult says what a PlanRollback restored, and what had
// changed since the plan ended.
type RollbackPlanResult struct {
	PlanID string `json:"planId"`
	// PlanStatus is how Temporal recorded the plan's end: Completed,
	// Failed, Canceled.
	PlanStatus string `json:"planStatus"`
	SnapshotID string `json:"snapshotId"`
	Workspace  string `json:"workspace"`
	// Restored are the files put back as they were before execution,
	// Removed the files created since; both sorted.
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
	// ChangedSince lists the files (and, with a trailing "/", the folders
	// whose entries changed) modified after the plan ended: a refusal's
	// reason, or what Force overwrote. ChangedMore counts those left out.
	ChangedSince []string `json:"changedSince,omitempty"`
	ChangedMore  int      `json:"changedMore,omitempty"`
	Forced       bool     `json:"forced,omitempty"`
}
