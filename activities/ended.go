package activities

import (
	"context"
	"time"

	"github.com/planmode/planmode/planread"
)

// Types of the errors PlanEnd refuses with; all non-retryable.
const (
	// ErrorTypePlanOpen is a plan that has not ended: its own rollback update
	// restores it.
	ErrorTypePlanOpen = "PlanOpen"
	// ErrorTypeNoSnapshot is an ended plan whose Result names no snapshot: it had
	// no workspace, ended before execution, was terminated, or ran before
	// Results carried the snapshot.
	ErrorTypeNoSnapshot = "NoSnapshot"
	// ErrorTypePlanNotFound is a plan id Temporal does not know.
	ErrorTypePlanNotFound = "PlanNotFound"
)

// MaxChangedPaths bounds the paths WorkspaceChangedSince lists.
const MaxChangedPaths = 50

// PlanEndInput names the ended plan a PlanRollback restores.
type PlanEndInput struct {
	PlanID string `json:"planId"`
	// StepID, when set, asks for the files as they were after that step
	// (its manifest) rather than before execution.
	StepID string `json:"stepId,omitempty"`
}

// PlanEndOutput is what a rollback needs of an ended plan: the status of
// its last run, when it closed, the snapshot to restore, its workspace and
// the files it left. The planread package owns its shape.
type PlanEndOutput = planread.End

// PlanEnd reads how plan in.PlanID ended (planread.PlanEnd), through the
// worker's own Temporal client: its status and close time (of the last
// run of a continue-as-new chain) and, from its Result, the snapshot and
// workspace. A plan still open is an ErrorTypePlanOpen error, a plan
// without a snapshot in its Result an ErrorTypeNoSnapshot error, an
// unknown one an ErrorTypePlanNotFound error; all non-retryable.
func (w *Workspaces) PlanEnd(ctx context.Context, in PlanEndInput) (PlanEndOutput, error) {
	end, err := planread.PlanEnd(ctx, w.client(ctx), in.PlanID, in.StepID)
	return end, readError(err)
}

// ChangedSinceInput asks what changed in a workspace after a time.
type ChangedSinceInput struct {
	Workspace string    `json:"workspace"`
	Since     time.Time `json:"since"`
	// Manifest, when set, names the files as the plan left them: what
	// differs from it changed since, whatever the times say.
	Manifest string `json:"manifest,omitempty"`
}

// ChangedSinceOutput lists the changed paths (see workspace.Root.ChangedSince),
// at most MaxChangedPaths, and counts the rest.
type ChangedSinceOutput struct {
	Paths []string `json:"paths,omitempty"`
	More  int      `json:"more,omitempty"`
}

// WorkspaceChangedSince lists the files of the workspace modified after
// in.Since, and the folders whose entries changed — or, with a files store
// and in.Manifest, what differs from the files the plan left — so that a
// rollback of an ended plan can refuse to overwrite work done since.
func (w *Workspaces) WorkspaceChangedSince(ctx context.Context, in ChangedSinceInput) (ChangedSinceOutput, error) {
	paths, more, err := w.folders().Changed(ctx, in.Workspace, in.Since, in.Manifest, MaxChangedPaths)
	if err != nil {
		return ChangedSinceOutput{}, refusal(err)
	}
	return ChangedSinceOutput{Paths: paths, More: more}, nil
}
