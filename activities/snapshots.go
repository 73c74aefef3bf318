package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/folders"
)

// SnapshotWorkspace records the workspace, .git included, before
// execution (folders.Folders.Snapshot): with a files store as a manifest,
// its id what SnapshotID holds, else as a whole copy. A retry on the same
// worker gives the same id. What it left out is listed in Skipped, at
// most workspace.MaxSkipsListed of them. A workspace over the limits is a
// non-retryable ErrorTypeSnapshot error.
func (w *Workspaces) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	snap, err := w.folders().Snapshot(ctx, in.Workspace, in.Files.ref(), in.PlanID, pinFor(ctx, in.PlanID))
	if err != nil {
		return SnapshotOutput{}, refusal(err)
	}
	return SnapshotOutput{SnapshotID: snap.ID, Manifest: snap.Manifest, Files: snap.Files, Skipped: workspace.ListSkips(snap.Skipped)}, nil
}

// RestoreWorkspace makes the workspace equal to the snapshot or manifest
// in.SnapshotID (folders.Folders.Restore): files modified or deleted since
// are put back (Restored), files created since are removed (Removed), both
// sorted. Running it again changes nothing, so retries are safe. An
// unknown snapshot, or one of another workspace, is a non-retryable
// ErrorTypeSnapshot error; a folder that changed since the files in.Guard
// names a non-retryable signals.ErrorTypeWorkspaceChanged whose details
// list what changed; a store that is down or a stored file that fails its
// hash is retried, nothing written meanwhile.
func (w *Workspaces) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	got, err := w.folders().Restore(ctx, folders.RestoreRequest{ID: in.SnapshotID, Workspace: in.Workspace,
		IfMoved: in.IfMoved, Guard: in.Guard, Force: in.Force, MaxChanged: MaxChangedPaths})
	var changed *folders.Changed
	if errors.As(err, &changed) {
		return RestoreOutput{}, temporal.NewNonRetryableApplicationError(changed.Error(), signals.ErrorTypeWorkspaceChanged,
			nil, ChangedSinceOutput{Paths: changed.Paths, More: changed.More})
	}
	if err != nil {
		return RestoreOutput{}, refusal(err)
	}
	return RestoreOutput{Restored: got.Written, Removed: got.Removed}, nil
}
