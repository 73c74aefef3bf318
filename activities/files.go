package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/workspace"
)

// FilesRef names the files an activity works on once a plan's files are
// recorded: the content-addressed manifest its folder is brought to first
// — on whichever worker it runs, from the blob store, only the files that
// differ — and whether it works in a step's private copy. The zero value
// works in the workspace as the worker finds it (before execution).
type FilesRef struct {
	// Manifest is the plan's (or, in a copy, the step's) manifest.
	Manifest string `json:"manifest,omitempty"`
	// Copy names the step whose private copy the activity works in: steps
	// that run side by side each change a copy of their own, merged into
	// the plan's files when they end (MergeWorkspace).
	Copy string `json:"copy,omitempty"`
}

// folder is the folder an activity works in, locked for it: shared by
// the calls that work in it, or held alone to bring it to a manifest.
type folder struct {
	dir   string
	owner string // the workspace's key: the owner of its manifests
	mu    *sync.RWMutex
	alone bool
}

// release unlocks the folder.
func (f folder) release() {
	switch {
	case f.mu == nil:
	case f.alone:
		f.mu.Unlock()
	default:
		f.mu.RUnlock()
	}
}

// folderLocks keeps one worker's activities from bringing a folder to a
// manifest while others work in it. Calls share a folder, as steps side
// by side always could: the workflow lets one step at a time change the
// plan's folder, and others read it or work in copies of their own.
type folderLocks struct {
	mu    sync.Mutex
	locks map[string]*sync.RWMutex
}

func (l *folderLocks) of(dir string) *sync.RWMutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.locks == nil {
		l.locks = map[string]*sync.RWMutex{}
	}
	m, ok := l.locks[dir]
	if !ok {
		m = &sync.RWMutex{}
		l.locks[dir] = m
	}
	return m
}

// enter resolves the folder an activity on workspace ws works in — the
// workspace, or the private copy ref.Copy names — locks it and, when ref
// names a manifest this worker did not leave the folder at (another
// worker ran the last step, a merge, a rollback, a fork, a call cut off
// half-way), brings it there. A call that only reads (reading) takes a
// folder another call is changing as it is, when that call started from
// ref's manifest. A workspace this worker has never held is created when
// a manifest says what goes in it. Call release.
func (a *Activities) enter(ctx context.Context, ws string, ref FilesRef, reading bool) (folder, error) {
	create := ref.Manifest != "" && a.Files != nil
	f, err := a.locate(ws, ref.Copy, create)
	if err != nil {
		return folder{}, err
	}
	if create && !a.current(f.dir, ref.Manifest, reading) {
		if err := f.lock(ctx, a, true); err != nil {
			return folder{}, err
		}
		if !a.current(f.dir, ref.Manifest, reading) {
			req := workspace.SyncRequest{Dir: f.dir, Owner: f.owner, ID: ref.Manifest, Beat: heartbeat.Recorder(ctx)}
			if _, err := a.Files.Sync(ctx, req); err != nil {
				f.release()
				return folder{}, filesError("bring the workspace to its recorded files", err)
			}
		}
		f.release()
	}
	if err := f.lock(ctx, a, false); err != nil {
		return folder{}, err
	}
	return f, nil
}

// current reports whether this worker left dir at manifest id, or, for a
// call that only reads, started changing it from there.
func (a *Activities) current(dir, id string, reading bool) bool {
	if reading {
		return a.Files.Last(dir) == id
	}
	return a.Files.At(dir) == id
}

// open resolves and locks the folder of workspace ws, or of its step copy
// when copyOf names a step, alone or shared; create makes a missing
// workspace. Call release.
func (a *Activities) open(ctx context.Context, ws, copyOf string, create, alone bool) (folder, error) {
	f, err := a.locate(ws, copyOf, create)
	if err != nil {
		return folder{}, err
	}
	if err := f.lock(ctx, a, alone); err != nil {
		return folder{}, err
	}
	return f, nil
}

// locate resolves the folder of workspace ws, or of its step copy when
// copyOf names a step, without locking it; create makes a missing
// workspace.
func (a *Activities) locate(ws, copyOf string, create bool) (folder, error) {
	real, err := a.Workspace.Resolve(ws, !create)
	if err != nil {
		return folder{}, refusal(err)
	}
	owner, err := a.keyOf(ws, real)
	if err != nil {
		return folder{}, err
	}
	f := folder{dir: real, owner: owner}
	if copyOf != "" && a.Files != nil {
		f.dir = a.Files.CopyDir(owner, copyOf)
		if err := os.MkdirAll(f.dir, 0o700); err != nil {
			return folder{}, fmt.Errorf("copy of step %s: %w", copyOf, err)
		}
		// In use: the worker's sweep removes copies left untouched a day.
		now := time.Now()
		_ = os.Chtimes(f.dir, now, now)
	}
	return f, nil
}

// lock takes f's lock on this worker, alone or shared (see acquire).
func (f *folder) lock(ctx context.Context, a *Activities, alone bool) error {
	f.mu, f.alone = a.folders.of(f.dir), alone
	if err := acquire(ctx, f.mu, alone); err != nil {
		f.mu = nil
		return fmt.Errorf("wait for the workspace folder: %w", err)
	}
	return nil
}

// acquire takes mu, alone or shared, for as long as ctx allows, and
// heartbeats while it waits: a folder is held alone only to bring it to a
// manifest, which waits for the calls working in it to end.
func acquire(ctx context.Context, mu *sync.RWMutex, alone bool) error {
	try := mu.TryRLock
	if alone {
		try = mu.TryLock
	}
	beat := heartbeat.Recorder(ctx)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for !try() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if time.Since(last) >= time.Second {
			beat("waiting for the workspace folder")
			last = time.Now()
		}
	}
	return nil
}

// record records the folder's files as a manifest of its workspace, pinned
// for the plan (see pinFor), and returns its id.
func (a *Activities) record(ctx context.Context, f folder, planID string) (workspace.Recorded, error) {
	rec, err := a.Files.Record(ctx, workspace.RecordRequest{Dir: f.dir, Owner: f.owner, PlanID: pinFor(ctx, planID),
		Beat: heartbeat.Recorder(ctx)})
	if err != nil {
		return rec, filesError("record the workspace", err)
	}
	return rec, nil
}

// pinFor is the plan a manifest is pinned for: the workflow id of the
// activity's plan, which a collection asks Temporal about (a plan's own id,
// plan.Plan.ID, names its selected option, not its workflow), else
// fallback outside an activity.
func pinFor(ctx context.Context, fallback string) string {
	if activity.IsActivity(ctx) {
		return activity.GetInfo(ctx).WorkflowExecution.ID
	}
	return fallback
}

// filesError classifies a failure of the workspace's files: a refusal
// (no such manifest, another workspace's, over the limits) is final; a
// corrupt blob or a store that is down is retried — the next attempt may
// run on another worker, or find the store back — and says so.
func filesError(what string, err error) error {
	switch {
	case errors.Is(err, workspace.ErrCorrupt):
		return fmt.Errorf("%s: a stored file does not match its hash, nothing was written (retried): %w", what, err)
	case errors.Is(err, blobstore.ErrUnavailable):
		return fmt.Errorf("%s: the workspace store is unavailable, nothing was written (retried): %w", what, err)
	}
	if r := refusal(err); r != err {
		return r
	}
	return fmt.Errorf("%s: %w", what, err)
}

// bringUp brings workspace ws to the manifest ref names, for an activity
// that only reads it; nothing without a workspace or a manifest.
func (a *Activities) bringUp(ctx context.Context, ws string, ref FilesRef) error {
	if ws == "" || ref.Manifest == "" || a.Files == nil {
		return nil
	}
	f, err := a.enter(ctx, ws, ref, true)
	if err != nil {
		return err
	}
	f.release()
	return nil
}
