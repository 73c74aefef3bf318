package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/workspace"
)

// measureWorkspace measures what keeping a plan's files costs, on a store
// folder as a lone worker has by default: the first record of a workspace
// of sz.WorkspaceFiles files and sz.WorkspaceMB MB; a step's record when
// it changed 3 files (time, bytes stored, files hashed: what changed, not
// the workspace; its manifest lists what changed, the whole list every
// 17th step); a fresh worker's hydration of the whole workspace; and
// the bytes stored for 10 forks that each change one file, against 11
// whole copies (the dedup ratio).
func measureWorkspace(ctx context.Context, r *rig, sz sizes, rep *report) error {
	dir, err := os.MkdirTemp("", "planmode-bench-ws-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := blobstore.NewDir(filepath.Join(dir, "store"))
	if err != nil {
		return err
	}
	files := &workspace.Files{Store: store, StateDir: filepath.Join(dir, "state")}
	ws := filepath.Join(dir, "ws")
	total, err := fillWorkspace(ws, sz.WorkspaceFiles, sz.WorkspaceMB<<20)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := files.Record(ctx, workspace.RecordRequest{Dir: ws, Owner: "bench", PlanID: "bench"}); err != nil {
		return err
	}
	firstTime := time.Since(start)
	// Files written within a clock tick of a record are hashed again by
	// the next one (workspace's racy window): settle them first, as the
	// time a plan spends between steps does.
	time.Sleep(50 * time.Millisecond)
	first, err := files.Record(ctx, workspace.RecordRequest{Dir: ws, Owner: "bench", PlanID: "bench"})
	if err != nil {
		return err
	}
	grown, err := storedBytes(ctx, store)
	if err != nil {
		return err
	}

	// A chain of deltas is at most 16 deep: 17 steps store one whole
	// manifest, which the growth per step then averages in.
	const steps = 17
	var stepTime time.Duration
	var stored int64
	var hashed int
	last := first
	for i := range steps {
		for j := range 3 {
			name := filepath.Join(ws, fmt.Sprintf("d%d", j), fmt.Sprintf("f%d.txt", (i*7+j)%sz.WorkspaceFiles))
			if err := os.WriteFile(name, fmt.Appendf(nil, "step %d changed file %d\n", i, j), 0o644); err != nil {
				return err
			}
		}
		start := time.Now()
		last, err = files.Record(ctx, workspace.RecordRequest{Dir: ws, Owner: "bench", PlanID: "bench"})
		if err != nil {
			return err
		}
		stepTime += time.Since(start)
		stored += last.NewBytes
		hashed += last.Hashed
	}
	afterSteps, err := storedBytes(ctx, store)
	if err != nil {
		return err
	}
	grown = afterSteps - grown

	fresh := &workspace.Files{Store: store, StateDir: filepath.Join(dir, "state-fresh")}
	start = time.Now()
	if _, err := fresh.Sync(ctx, workspace.SyncRequest{Dir: filepath.Join(dir, "hydrated"), Owner: "bench", ID: last.ID}); err != nil {
		return err
	}
	hydrate := time.Since(start)

	before, err := storedBytes(ctx, store)
	if err != nil {
		return err
	}
	for i := range 10 {
		owner := fmt.Sprintf("fork-%d", i)
		id, err := files.Adopt(ctx, last.ID, "bench", owner, owner)
		if err != nil {
			return err
		}
		fork := filepath.Join(dir, owner)
		if _, err := files.Sync(ctx, workspace.SyncRequest{Dir: fork, Owner: owner, ID: id}); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(fork, "fork.txt"), []byte(owner), 0o644); err != nil {
			return err
		}
		if _, err := files.Record(ctx, workspace.RecordRequest{Dir: fork, Owner: owner, PlanID: owner}); err != nil {
			return err
		}
	}
	after, err := storedBytes(ctx, store)
	if err != nil {
		return err
	}
	r.logf("workspace: %d files, %d bytes; store %d → %d bytes after 10 forks", sz.WorkspaceFiles, total, before, after)

	kase := fmt.Sprintf("%d files, %d MB", sz.WorkspaceFiles, sz.WorkspaceMB)
	rep.add(secWorkspace, kase, "first record ms", ms(firstTime), "hashes and stores every file")
	rep.add(secWorkspace, kase, "record ms/step", ms(stepTime/steps), "a step that changed 3 files: stat walk, 3 hashed")
	rep.add(secWorkspace, kase, "bytes stored/step", float64(stored)/steps, "the changed files' blobs (the manifest apart)")
	rep.add(secWorkspace, kase, "files hashed/step", float64(hashed)/steps, "the stat cache answers for the rest")
	rep.add(secWorkspace, kase, "store growth bytes/step", float64(grown)/steps, "blobs and the manifest: a delta, whole every 17th step (averaged in)")
	rep.add(secWorkspace, kase, "hydrate ms", ms(hydrate), "a fresh worker brings an empty folder to the last step's files")
	rep.add(secWorkspace, kase, "hydrate MB/s", float64(total)/(1<<20)/hydrate.Seconds(), "")
	rep.add(secWorkspace, kase, "dedup ratio (10 forks)", float64(11*total)/float64(after), "11 workspaces' bytes over the store's")
	return nil
}

// fillWorkspace writes n files of about size/n random bytes each under
// ws, in folders d0…d9, and returns the bytes written.
func fillWorkspace(ws string, n int, size int64) (int64, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	each := size / int64(n)
	buf := make([]byte, each)
	var total int64
	for i := range n {
		for k := range buf {
			buf[k] = byte('a' + rng.IntN(26))
		}
		d := filepath.Join(ws, fmt.Sprintf("d%d", i%10))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.txt", i)), buf, 0o644); err != nil {
			return 0, err
		}
		total += each
	}
	return total, nil
}

// storedBytes sums the sizes of the store's blobs and manifests.
func storedBytes(ctx context.Context, store blobstore.Store) (int64, error) {
	var n int64
	err := store.List(ctx, "", func(i blobstore.Info) error {
		n += i.Size
		return nil
	})
	return n, err
}
