package folders

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/workspace"
)

// Snapshot is a workspace recorded before execution: with a files store
// a manifest (ID and Manifest), without one a whole copy in the snapshot
// folder (ID).
type Snapshot struct {
	ID       string
	Manifest string
	Files    int
	Skipped  []workspace.Skip
}

// Snapshot records workspace ws, .git included: with a files store as a
// manifest pinned for pin, the folder first brought to ref (a fork's
// files); without one as a copy under an id derived from planID and the
// workspace. A retry on the same worker gives the same id.
func (s *Folders) Snapshot(ctx context.Context, ws string, ref Ref, planID, pin string) (Snapshot, error) {
	if s.Files == nil {
		snap, err := s.Root.Snapshot(ctx, planID, ws, heartbeat.Recorder(ctx))
		if err != nil {
			return Snapshot{}, err
		}
		return Snapshot{ID: snap.ID, Files: snap.Files, Skipped: snap.Skipped}, nil
	}
	f, err := s.Enter(ctx, ws, ref, false)
	if err != nil {
		return Snapshot{}, err
	}
	defer f.Release()
	rec, err := s.Record(ctx, f, pin)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{ID: rec.ID, Manifest: rec.ID, Files: rec.Files, Skipped: rec.Skipped}, nil
}

// RestoreRequest puts snapshot or manifest ID back into workspace
// Workspace. IfMoved restores only when this worker did not leave the
// folder at ID; Guard, unless Force, refuses to restore over a folder that
// differs from that manifest (a *Changed error listing at most MaxChanged
// paths).
type RestoreRequest struct {
	ID, Workspace string
	IfMoved       bool
	Guard         string
	Force         bool
	MaxChanged    int
}

// Restored is what a restore changed: the files put back and those
// removed, sorted.
type Restored struct {
	Written, Removed []string
}

// Changed is the refusal of a guarded restore: the workspace changed
// since the plan ended, at Paths and More others.
type Changed struct {
	Paths []string
	More  int
}

// Error says what changed and how to overwrite it.
func (c *Changed) Error() string {
	list := strings.Join(c.Paths, ", ")
	if c.More > 0 {
		list += fmt.Sprintf(" and %d more", c.More)
	}
	return fmt.Sprintf("the workspace changed since the plan ended: %s; force the rollback to overwrite them", list)
}

// Restore makes the workspace equal to req.ID: files modified or deleted
// since are put back, files created since removed. Running it again
// changes nothing. A snapshot copied whole (no store, or an id that is no
// manifest's, taken by an earlier version of the worker) comes back from
// the snapshot folder.
func (s *Folders) Restore(ctx context.Context, req RestoreRequest) (Restored, error) {
	if s.Files == nil || !workspace.ValidManifestID(req.ID) {
		restored, removed, err := s.Root.Restore(ctx, req.ID, req.Workspace, heartbeat.Recorder(ctx))
		return Restored{Written: restored, Removed: removed}, err
	}
	_, missing := s.Root.Resolve(req.Workspace, true)
	f, err := s.Open(ctx, req.Workspace, "", true, true)
	if err != nil {
		return Restored{}, err
	}
	defer f.Release()
	if req.IfMoved && s.Files.At(f.Dir) == req.ID {
		return Restored{}, nil
	}
	if req.Guard != "" && !req.Force && missing == nil {
		paths, more, err := s.Files.Changed(ctx, f.Dir, req.Guard, req.MaxChanged)
		if err != nil {
			return Restored{}, filesError("compare the workspace with the plan's files", err)
		}
		if len(paths) > 0 {
			return Restored{}, &Changed{Paths: paths, More: more}
		}
	}
	synced, err := s.Files.Sync(ctx, workspace.SyncRequest{Dir: f.Dir, Owner: f.Owner, ID: req.ID,
		Beat: heartbeat.Recorder(ctx)})
	if err != nil {
		return Restored{}, filesError("restore the workspace", err)
	}
	return Restored{Written: synced.Written, Removed: synced.Removed}, nil
}

// Merge merges what step stepID changed in its copy (theirs, from base)
// into the plan's files (ours) of workspace ws, pinned for pin (see
// workspace.Files.Merge), and drops the step's copy on this worker. It
// needs a files store.
func (s *Folders) Merge(ctx context.Context, ws, stepID, pin, base, ours, theirs string) (workspace.Merged, error) {
	if s.Files == nil {
		return workspace.Merged{}, refuse(nil, "the worker keeps no files store: steps cannot run side by side in copies")
	}
	owner, err := s.owner(ctx, ws)
	if err != nil {
		return workspace.Merged{}, err
	}
	m, err := s.Files.Merge(ctx, workspace.MergeRequest{Owner: owner, PlanID: pin, Base: base, Ours: ours, Theirs: theirs})
	if err != nil {
		return workspace.Merged{}, filesError("merge step "+stepID+"'s files", err)
	}
	if stepID != "" {
		_ = os.RemoveAll(s.Files.CopyDir(owner, stepID))
	}
	return m, nil
}

// Adopt makes manifest id, another workspace's (a fork's parent), one of
// workspace ws, pinned for pin — the same blobs, nothing copied in the
// store — and brings the folder of ws to it. It returns the adopted
// manifest. It needs a files store.
func (s *Folders) Adopt(ctx context.Context, ws, id, pin string) (string, error) {
	if s.Files == nil {
		return "", refuse(nil, "the worker keeps no files store: plans cannot be forked")
	}
	m, err := s.Files.Load(ctx, id)
	if err != nil {
		return "", filesError("read the parent's files", err)
	}
	owner, err := s.owner(ctx, ws)
	if err != nil {
		return "", err
	}
	adopted, err := s.Files.Adopt(ctx, id, m.Owner, owner, pin)
	if err != nil {
		return "", filesError("adopt the parent's files", err)
	}
	if err := s.BringUp(ctx, ws, Ref{Manifest: adopted}); err != nil {
		return "", err
	}
	return adopted, nil
}

// owner returns the key of workspace ws, created when missing, once no
// call of this worker is bringing its folder to a manifest.
func (s *Folders) owner(ctx context.Context, ws string) (string, error) {
	f, err := s.Open(ctx, ws, "", true, false)
	if err != nil {
		return "", err
	}
	f.Release()
	return f.Owner, nil
}

// Changed lists, at most max and counting the rest, what changed in
// workspace ws since a plan ended: with a files store and the manifest
// the plan left, what differs from it, whatever the times say (nothing in
// a workspace this worker does not hold); else the files modified after
// since and the folders whose entries changed.
func (s *Folders) Changed(ctx context.Context, ws string, since time.Time, manifest string, max int) ([]string, int, error) {
	if manifest == "" || s.Files == nil {
		return s.Root.ChangedSince(ctx, ws, since, max)
	}
	f, err := s.Open(ctx, ws, "", false, false)
	if errors.Is(err, workspace.ErrRejected) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Release()
	paths, more, err := s.Files.Changed(ctx, f.Dir, manifest, max)
	if err != nil {
		return nil, 0, filesError("compare the workspace with the plan's files", err)
	}
	return paths, more, nil
}
