package activities

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
)

// SnapshotWorkspace records the workspace, .git included, before
// execution. With a files store it is a content-addressed manifest (the
// folder first brought to in.Files.Manifest, a fork's files), its id
// what SnapshotID holds; without one, a copy in the snapshot directory
// under an id derived from the plan id and the workspace. A retry on the
// same worker gives the same id. What it left out (hard-linked files, fifos,
// symlinks leading outside) is listed in Skipped, at most
// maxSkippedListed of them. A workspace over the limits is a
// non-retryable ErrorTypeSnapshot error.
func (a *Activities) SnapshotWorkspace(ctx context.Context, in SnapshotInput) (SnapshotOutput, error) {
	if a.Files == nil {
		snap, err := a.Workspace.Snapshot(ctx, in.PlanID, in.Workspace, heartbeat.Recorder(ctx))
		if err != nil {
			return SnapshotOutput{}, refusal(err)
		}
		return SnapshotOutput{SnapshotID: snap.ID, Files: snap.Files, Skipped: listSkipped(snap.Skipped)}, nil
	}
	f, err := a.enter(ctx, in.Workspace, in.Files, false)
	if err != nil {
		return SnapshotOutput{}, err
	}
	defer f.release()
	rec, err := a.record(ctx, f, in.PlanID)
	if err != nil {
		return SnapshotOutput{}, err
	}
	return SnapshotOutput{SnapshotID: rec.ID, Manifest: rec.ID, Files: rec.Files, Skipped: listSkipped(rec.Skipped)}, nil
}

// listSkipped lists skipped paths for history, at most maxSkippedListed.
func listSkipped(skipped []workspace.Skip) []string {
	var out []string
	for i, s := range skipped {
		if i == maxSkippedListed {
			out = append(out, fmt.Sprintf("and %d more", len(skipped)-i))
			break
		}
		out = append(out, s.String())
	}
	return out
}

// maxSkippedListed bounds the skipped paths a snapshot's output, which
// lands in the workflow's history, lists.
const maxSkippedListed = 20

// RestoreWorkspace makes the workspace equal to the snapshot or manifest
// in.SnapshotID: files modified or deleted since are put back (Restored),
// files created since are removed (Removed), both sorted. Running it again
// changes nothing, so retries are safe. An unknown snapshot, or one of
// another workspace, is a non-retryable ErrorTypeSnapshot error; a store
// that is down or a stored file that fails its hash is retried, nothing
// written meanwhile.
func (a *Activities) RestoreWorkspace(ctx context.Context, in RestoreInput) (RestoreOutput, error) {
	if a.Files == nil || !workspace.ValidManifestID(in.SnapshotID) {
		// A snapshot copied whole by an earlier version of the worker.
		restored, removed, err := a.Workspace.Restore(ctx, in.SnapshotID, in.Workspace, heartbeat.Recorder(ctx))
		if err != nil {
			return RestoreOutput{}, refusal(err)
		}
		return RestoreOutput{Restored: restored, Removed: removed}, nil
	}
	_, missing := a.Workspace.Resolve(in.Workspace, true)
	f, err := a.open(ctx, in.Workspace, "", true, true)
	if err != nil {
		return RestoreOutput{}, err
	}
	defer f.release()
	if in.IfMoved && a.Files.At(f.dir) == in.SnapshotID {
		return RestoreOutput{}, nil
	}
	if in.Guard != "" && !in.Force && missing == nil {
		if err := a.guard(ctx, f, in.Guard); err != nil {
			return RestoreOutput{}, err
		}
	}
	synced, err := a.Files.Sync(ctx, workspace.SyncRequest{Dir: f.dir, Owner: f.owner, ID: in.SnapshotID,
		Beat: heartbeat.Recorder(ctx)})
	if err != nil {
		return RestoreOutput{}, filesError("restore the workspace", err)
	}
	return RestoreOutput{Restored: synced.Written, Removed: synced.Removed}, nil
}

// guard refuses to restore over a folder that differs from manifest id,
// the files a plan left: whatever differs was changed after it ended.
func (a *Activities) guard(ctx context.Context, f folder, id string) error {
	paths, more, err := a.Files.Changed(ctx, f.dir, id, MaxChangedPaths)
	if err != nil {
		return filesError("compare the workspace with the plan's files", err)
	}
	if len(paths) == 0 {
		return nil
	}
	list := strings.Join(paths, ", ")
	if more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("the workspace changed since the plan ended: %s; "+
		"force the rollback to overwrite them", list), signals.ErrorTypeWorkspaceChanged, nil,
		ChangedSinceOutput{Paths: paths, More: more})
}
