package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/workspace"
)

// pruneEvery is how often the worker removes expired snapshots and
// outputs, besides once at start.
const pruneEvery = time.Hour

// pruner removes the workspace snapshots older than
// workspace.snapshotRetention and the plans' full outputs last written
// before outputs.retention; a zero retention keeps that kind for ever.
// Every worker sharing a snapshot or output folder may run one: removing
// is idempotent.
type pruner struct {
	root              workspace.Root
	snapshotRetention time.Duration
	// files is the plans' files store, nil when none; planState tells
	// its collection which plans are open.
	files     *workspace.Files
	planState func(ctx context.Context, planID string) (bool, time.Time, error)
	// outputs is the full outputs' store, nil when none is kept.
	outputs          *outputs.Store
	outputsRetention time.Duration
	// now is the clock; tests pass a fake one.
	now    func() time.Time
	logger *slog.Logger
}

// idle reports whether p has nothing to prune.
func (p pruner) idle() bool {
	return p.snapshotRetention <= 0 && (p.outputs == nil || p.outputsRetention <= 0)
}

// run prunes at once and then on every tick until ctx ends.
func (p pruner) run(ctx context.Context, ticks <-chan time.Time) {
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

// prune removes what expired once and logs what it did; a failure is
// logged and retried at the next tick.
func (p pruner) prune() {
	if p.snapshotRetention > 0 {
		removed, err := p.root.PruneSnapshots(p.now(), p.snapshotRetention)
		if len(removed) > 0 {
			p.logger.Info("removed expired workspace snapshots", "count", len(removed), "retention", p.snapshotRetention, "ids", removed)
		}
		if err != nil {
			p.logger.Warn("could not remove every expired workspace snapshot", "error", err)
		}
		p.collect()
	}
	if p.files != nil && p.outputsRetention > 0 {
		n, err := outputs.PruneShared(context.Background(), p.files.Store, p.now(), p.outputsRetention)
		if n > 0 {
			p.logger.Info("removed expired outputs from the store", "count", n, "retention", p.outputsRetention)
		}
		if err != nil {
			p.logger.Warn("could not remove every expired output from the store", "error", err)
		}
	}
	if p.outputs != nil && p.outputsRetention > 0 {
		removed, err := p.outputs.Prune(p.now(), p.outputsRetention)
		if len(removed) > 0 {
			p.logger.Info("removed expired full outputs", "count", len(removed), "retention", p.outputsRetention, "plans", removed)
		}
		if err != nil {
			p.logger.Warn("could not remove every expired full output", "error", err)
		}
	}
}

// startPruning runs p on the wall clock every pruneEvery until ctx ends
// or the returned stop is called (stop waits for it). A pruner with
// nothing to prune starts nothing.
func startPruning(ctx context.Context, p pruner) (stop func()) {
	if p.idle() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	ticker := time.NewTicker(pruneEvery)
	done := make(chan struct{})
	p.now = time.Now
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

// copyAge is how long a step's private copy may lie untouched before the
// worker removes it: a step that ran longer keeps touching it.
const copyAge = 24 * time.Hour

// collectGrace is how old an unreferenced blob or manifest must be before
// a collection removes it: a record in flight puts its blobs before the
// manifest that names them.
const collectGrace = time.Hour

// collect removes from the files store what no open plan, and no plan
// closed within the snapshot retention, references.
func (p pruner) collect() {
	if p.files == nil || p.planState == nil {
		return
	}
	if n, err := p.files.SweepCopies(p.now(), copyAge); n > 0 || err != nil {
		p.logger.Info("removed steps' copies left behind", "count", n, "error", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	got, err := p.files.Collect(ctx, workspace.CollectRequest{Now: p.now(), Retention: p.snapshotRetention,
		Grace: collectGrace, PlanState: p.planState})
	if got.Blobs+got.Manifests+got.Pins > 0 {
		p.logger.Info("removed unreferenced workspace files", "blobs", got.Blobs, "manifests", got.Manifests, "pins", got.Pins,
			"bytes", got.Bytes)
	}
	if err != nil {
		p.logger.Warn("could not collect every unreferenced workspace file", "error", err)
	}
}
