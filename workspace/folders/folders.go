// Package folders keeps one worker's folders of the plans' workspaces: it
// resolves the folder a call works in (the workspace, or a step's private
// copy), brings it to the manifest the call names before the call starts
// (fetching from the store of the plans' files only what differs), and
// keeps the calls of this worker from bringing a folder to a manifest
// while others work in it. On top of that it takes and restores the
// workspaces' snapshots, merges a step's copy back, adopts a fork's files
// and says what changed since a plan ended.
//
// Errors are the workspace package's: a [workspace.Refusal] no retry can
// fix, or a fault of the worker (a store that is down, a stored file that
// fails its hash) that says why and that a retry may fix.
package folders

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/heartbeat"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/workspace"
)

// Folders are the plans' workspaces on this worker. The zero value works
// in the folders as found, under no root. Set the fields before use and
// leave them alone after: calls run concurrently.
type Folders struct {
	// Root confines the workspaces and keeps the whole-copy snapshots.
	Root workspace.Root
	// Files keeps the plans' files in a blob store, so that any worker
	// brings a folder to the manifest a call names; nil works in the
	// folders as found (no manifests, no forks, no copies).
	Files *workspace.Files

	// locks serializes the calls on one folder.
	locks locks
}

// Ref names the files a call works on: the manifest its folder is
// brought to first, and the step whose private copy it works in. The
// zero Ref works in the workspace as found.
type Ref struct {
	Manifest string
	Copy     string
}

// Folder is the folder a call works in, locked for it: shared by the
// calls that work in it, or held alone to bring it to a manifest.
type Folder struct {
	// Dir is the folder's path.
	Dir string
	// Owner is the workspace's key: the owner of its manifests.
	Owner string
	mu    *sync.RWMutex
	alone bool
}

// Release unlocks the folder.
func (f Folder) Release() {
	switch {
	case f.mu == nil:
	case f.alone:
		f.mu.Unlock()
	default:
		f.mu.RUnlock()
	}
}

// locks keeps one worker's calls from bringing a folder to a manifest
// while others work in it. Calls share a folder, as steps side by side
// always could: the workflow lets one step at a time change the plan's
// folder, and others read it or work in copies of their own.
type locks struct {
	mu sync.Mutex
	of map[string]*sync.RWMutex
}

// lockOf returns the lock of dir.
func (l *locks) lockOf(dir string) *sync.RWMutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.of == nil {
		l.of = map[string]*sync.RWMutex{}
	}
	m, ok := l.of[dir]
	if !ok {
		m = &sync.RWMutex{}
		l.of[dir] = m
	}
	return m
}

// Enter resolves the folder a call on workspace ws works in — the
// workspace, or the private copy ref.Copy names — locks it and, when ref
// names a manifest this worker did not leave the folder at (another
// worker ran the last step, a merge, a rollback, a fork, a call cut off
// half-way), brings it there. A call that only reads (reading) takes a
// folder another call is changing as it is, when that call started from
// ref's manifest. A workspace this worker has never held is created when
// a manifest says what goes in it. Call Release.
func (s *Folders) Enter(ctx context.Context, ws string, ref Ref, reading bool) (Folder, error) {
	create := ref.Manifest != "" && s.Files != nil
	f, err := s.locate(ws, ref.Copy, create)
	if err != nil {
		return Folder{}, err
	}
	if create && !s.current(f.Dir, ref.Manifest, reading) {
		if err := s.lock(ctx, &f, true); err != nil {
			return Folder{}, err
		}
		if !s.current(f.Dir, ref.Manifest, reading) {
			req := workspace.SyncRequest{Dir: f.Dir, Owner: f.Owner, ID: ref.Manifest, Beat: heartbeat.Recorder(ctx)}
			if _, err := s.Files.Sync(ctx, req); err != nil {
				f.Release()
				return Folder{}, filesError("bring the workspace to its recorded files", err)
			}
		}
		f.Release()
	}
	if err := s.lock(ctx, &f, false); err != nil {
		return Folder{}, err
	}
	return f, nil
}

// current reports whether this worker left dir at manifest id, or, for a
// call that only reads, started changing it from there.
func (s *Folders) current(dir, id string, reading bool) bool {
	if reading {
		return s.Files.Last(dir) == id
	}
	return s.Files.At(dir) == id
}

// Open resolves and locks the folder of workspace ws, or of its step copy
// when copyOf names a step, alone or shared; create makes a missing
// workspace. Call Release.
func (s *Folders) Open(ctx context.Context, ws, copyOf string, create, alone bool) (Folder, error) {
	f, err := s.locate(ws, copyOf, create)
	if err != nil {
		return Folder{}, err
	}
	if err := s.lock(ctx, &f, alone); err != nil {
		return Folder{}, err
	}
	return f, nil
}

// BringUp brings workspace ws to the manifest ref names, for a call that
// only reads it; nothing without a workspace, a manifest or a store.
func (s *Folders) BringUp(ctx context.Context, ws string, ref Ref) error {
	if ws == "" || ref.Manifest == "" || s.Files == nil {
		return nil
	}
	f, err := s.Enter(ctx, ws, ref, true)
	if err != nil {
		return err
	}
	f.Release()
	return nil
}

// Record records the folder's files as a manifest of its workspace, pinned
// for plan pin (a workflow id, which a collection asks Temporal about).
func (s *Folders) Record(ctx context.Context, f Folder, pin string) (workspace.Recorded, error) {
	rec, err := s.Files.Record(ctx, workspace.RecordRequest{Dir: f.Dir, Owner: f.Owner, PlanID: pin,
		Beat: heartbeat.Recorder(ctx)})
	if err != nil {
		return rec, filesError("record the workspace", err)
	}
	return rec, nil
}

// locate resolves the folder of workspace ws, or of its step copy when
// copyOf names a step, without locking it; create makes a missing
// workspace.
func (s *Folders) locate(ws, copyOf string, create bool) (Folder, error) {
	real, err := s.Root.Resolve(ws, !create)
	if err != nil {
		return Folder{}, err
	}
	owner, err := s.keyOf(ws, real)
	if err != nil {
		return Folder{}, err
	}
	f := Folder{Dir: real, Owner: owner}
	if copyOf != "" && s.Files != nil {
		f.Dir = s.Files.CopyDir(owner, copyOf)
		if err := os.MkdirAll(f.Dir, 0o700); err != nil {
			return Folder{}, fmt.Errorf("copy of step %s: %w", copyOf, err)
		}
		// In use: the worker's sweep removes copies left untouched a day.
		now := time.Now()
		_ = os.Chtimes(f.Dir, now, now)
	}
	return f, nil
}

// lock takes f's lock on this worker, alone or shared (see acquire).
func (s *Folders) lock(ctx context.Context, f *Folder, alone bool) error {
	f.mu, f.alone = s.locks.lockOf(f.Dir), alone
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
		if beat != nil && time.Since(last) >= time.Second {
			beat("waiting for the workspace folder")
			last = time.Now()
		}
	}
	return nil
}

// Key resolves ws and returns its lease key: its path relative to the
// workspace root, or its absolute path without a root. The root itself is
// refused, since it holds every plan's folder; own marks the plan's own
// folder, created when missing, which needs a root.
func (s *Folders) Key(ws string, own bool) (string, error) {
	if own && s.Root.Dir == "" {
		return "", refuse(nil, "no workspace: the plan names none and the worker has no workspace root")
	}
	real, err := s.Root.Resolve(ws, !own)
	if err != nil {
		return "", err
	}
	return s.keyOf(ws, real)
}

// keyOf returns the key of the workspace ws names, resolved to real (see
// Key).
func (s *Folders) keyOf(ws, real string) (string, error) {
	root := s.Root.Dir
	key := real
	if root != "" {
		realRoot, err := filepath.Abs(root)
		if err == nil {
			realRoot, err = filepath.EvalSymlinks(realRoot)
		}
		if err != nil {
			return "", fmt.Errorf("workspace root %s: %w", root, err)
		}
		if key, err = filepath.Rel(realRoot, real); err != nil {
			return "", refuse(err, fmt.Sprintf("workspace %s is outside the workspace root", real))
		}
	}
	key = filepath.ToSlash(key)
	if err := plan.ValidWorkspaceKey(key); err != nil {
		return "", refuse(err, fmt.Sprintf("workspace %q: %v: name a folder inside it, or none for the plan's own", ws, err))
	}
	return key, nil
}

// refuse returns a refusal of the workspace (workspace.ErrRejected).
func refuse(cause error, msg string) error {
	return &workspace.Refusal{Kind: workspace.ErrRejected, Msg: msg, Err: cause}
}

// filesError says what failed of the workspace's files: a corrupt blob or
// a store that is down is retried — the next attempt may run on another
// worker, or find the store back — and says so; a refusal (no such
// manifest, another workspace's, over the limits) stands as it is.
func filesError(what string, err error) error {
	switch {
	case errors.Is(err, workspace.ErrCorrupt):
		return fmt.Errorf("%s: a stored file does not match its hash, nothing was written (retried): %w", what, err)
	case errors.Is(err, blobstore.ErrUnavailable):
		return fmt.Errorf("%s: the workspace store is unavailable, nothing was written (retried): %w", what, err)
	}
	var r *workspace.Refusal
	if errors.As(err, &r) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Work runs work in the folder a call on workspace ws works in (Enter),
// a call that only reads unless change. When such a call changes the
// folder, ref names the manifest it starts from and there is a store, what
// it changed is recorded as a manifest pinned for pin, whose id Work
// returns: until the record ends the folder is marked half-way through
// the call, so that a retry brings it back first, and a failed record
// fails the call. An error of work ends the call unrecorded.
func (s *Folders) Work(ctx context.Context, ws string, ref Ref, change bool, pin string, work func(dir string) error) (string,
	error) {
	f, err := s.Enter(ctx, ws, ref, !change)
	if err != nil {
		return "", err
	}
	defer f.Release()
	record := change && ref.Manifest != "" && s.Files != nil
	if record {
		if err := s.Files.Begin(f.Dir); err != nil {
			return "", err
		}
	}
	if err := work(f.Dir); err != nil || !record {
		return "", err
	}
	rec, err := s.Record(ctx, f, pin)
	return rec.ID, err
}

// List lists the files of tc's workspace for a prompt, bounded
// (workspace.ListFiles), resolved under the root first: a relative
// workspace is the root's, not the worker's current folder, and one the
// root refuses lists nothing.
func (s *Folders) List(tc plan.TaskContext) ([]string, bool) {
	if len(tc.CurrentFiles) == 0 && tc.WorkspaceRoot != "" {
		ws, err := s.Root.Resolve(tc.WorkspaceRoot, true)
		if err != nil {
			return nil, false
		}
		tc.WorkspaceRoot = ws
	}
	return workspace.ListFiles(tc)
}
