package activities

import (
	"context"
	"fmt"

	"github.com/planmode/planmode/internal/heartbeat"
)

// SnapshotWorkspace copies the workspace, .git included, into the snapshot
// directory under an id derived from the plan id and the workspace, so a
// retry replaces the same snapshot. What it left out (hard-linked files,
// fifos, symlinks leading outside) is listed in Skipped, at most
// maxSkippedListed of them. A workspace over the snapshot limit is a
// non-retryable ErrorTypeSnapshot error.
func (a *Activities) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	snap, err := a.Workspace.Snapshot(ctx, in.PlanID, in.Workspace, heartbeat.Recorder(ctx))
	if err != nil {
		return SnapshotOutput{}, refusal(err)
	}
	out := SnapshotOutput{SnapshotID: snap.ID, Files: snap.Files}
	for i, s := range snap.Skipped {
		if i == maxSkippedListed {
			out.Skipped = append(out.Skipped, fmt.Sprintf("and %d more", len(snap.Skipped)-i))
			break
		}
		out.Skipped = append(out.Skipped, s.String())
	}
	return out, nil
}

// maxSkippedListed bounds the skipped paths a snapshot's output, which
// lands in the workflow's history, lists.
const maxSkippedListed = 20

// RestoreWorkspace makes the workspace equal to the snapshot: files
// modified or deleted since are put back (Restored), files created since
// are removed (Removed), both sorted. Running it again changes nothing, so
// retries are safe. An unknown snapshot, or one of another workspace, is a
// non-retryable ErrorTypeSnapshot error.
func (a *Activities) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	restored, removed, err := a.Workspace.Restore(ctx, in.SnapshotID, in.Workspace, heartbeat.Recorder(ctx))
	if err != nil {
		return RestoreOutput{}, refusal(err)
	}
	return RestoreOutput{Restored: restored, Removed: removed}, nil
}
