package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/planmode/planmode/workspace"
)

// pruneEvery is how often the worker removes expired snapshots, besides
// once at start.
const pruneEvery = time.Hour

// snapshotPruner removes the workspace snapshots older than the retention
// (workspace.snapshotRetention). Every worker sharing a snapshot folder may
// run one: removing is idempotent.
type snapshotPruner struct {
	root      workspace.Root
	retention time.Duration
	// now is the clock; tests pass a fake one.
	now    func() time.Time
	logger *slog.Logger
}

// run prunes at once and then on every tick until ctx ends.
func (p snapshotPruner) run(ctx context.Context, ticks <-chan time.Time) {
	p.prune()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			p.prune()
		}
	}
}

// prune removes the expired snapshots once and logs what it did; a
// failure is logged and retried at the next tick.
func (p snapshotPruner) prune() {
	removed, err := p.root.PruneSnapshots(p.now(), p.retention)
	if len(removed) > 0 {
		p.logger.Info("removed expired workspace snapshots", "count", len(removed), "retention", p.retention, "ids", removed)
	}
	if err != nil {
		p.logger.Warn("could not remove every expired workspace snapshot", "error", err)
	}
}

// startPruning runs a snapshotPruner on the wall clock every pruneEvery
// until ctx ends or the returned stop is called (stop waits for it). A
// retention of zero keeps snapshots for ever and starts nothing.
func startPruning(ctx context.Context, root workspace.Root, retention time.Duration, logger *slog.Logger) (stop func()) {
	if retention <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	ticker := time.NewTicker(pruneEvery)
	done := make(chan struct{})
	p := snapshotPruner{root: root, retention: retention, now: time.Now, logger: logger}
	go func() {
		defer close(done)
		p.run(ctx, ticker.C)
	}()
	return func() {
		cancel()
		ticker.Stop()
		<-done
	}
}
