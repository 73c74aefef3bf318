package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// measureFairness runs sz.FairSmall plans of sz.FairSmallSteps steps, each
// of a tenant of its own, first alone and then while one plan of
// sz.FairBigSteps independent steps (tenant "batch", all the parallelism
// a plan may have) keeps the task queue full, and reports the small
// plans' median and slowest time to finish in both cases and the ratio
// of the slowest: how much the big plan delays the small ones. Fairness
// keys (the tenant) share dispatch among tenants, so the ratio stays
// near 1 instead of growing with the big plan's backlog.
func measureFairness(ctx context.Context, r *rig, sz sizes, rep *report) error {
	// A worker that is the bottleneck, as a busy deployment's is: few
	// activity slots and a model that takes its time, so tasks wait in
	// the server's queue and the order it dispatches them in matters.
	wp, err := r.startWorkerProc(ctx, "fairness", fairWorker)
	if err != nil {
		return err
	}
	defer wp.stop()
	pc := wp.pc
	alone, err := smallPlans(ctx, r, pc, sz, "alone")
	if err != nil {
		return err
	}
	big := r.id("fair-big")
	req := externalRequest(sz.FairBigSteps)
	for i := range req.Plan.Steps {
		req.Plan.Steps[i].DependsOn = []string{}
	}
	req.Tenant, req.Execution.Parallelism = "batch", signals.MaxParallelism
	if _, err := pc.Start(ctx, big, req); err != nil {
		return fmt.Errorf("start %s: %w", big, err)
	}
	// The small plans start once the big one has a backlog of steps.
	if err := waitRunningSteps(ctx, pc, big, 2); err != nil {
		return err
	}
	together, err := smallPlans(ctx, r, pc, sz, "beside")
	if err != nil {
		return err
	}
	res, err := pc.Result(ctx, big)
	if err != nil || res.Status != signals.StatusCompleted {
		return fmt.Errorf("big plan %s: %v %s", big, err, res.Error)
	}
	kase := fmt.Sprintf("%d × %d steps beside %d", sz.FairSmall, sz.FairSmallSteps, sz.FairBigSteps)
	rep.add(secFairness, kase, "alone p50 ms", ms(median(alone)), "the small plans, started together, alone")
	rep.add(secFairness, kase, "alone max ms", ms(slowest(alone)), "")
	rep.add(secFairness, kase, "beside p50 ms", ms(median(together)), "the same, while the big plan runs")
	rep.add(secFairness, kase, "beside max ms", ms(slowest(together)), "")
	rep.add(secFairness, kase, "ratio", ms(slowest(together))/ms(slowest(alone)), "slowest beside ÷ slowest alone; target ≤ 1.5")
	r.logf("fairness: alone max %v, beside max %v", slowest(alone).Round(time.Millisecond), slowest(together).Round(time.Millisecond))
	return nil
}

// fairWorker is the fairness section's worker: 2 activity slots and 50 ms
// a model reply, about 40 activities a second at most.
var fairWorker = map[string]string{config.KeyMaxActivities: "2", config.KeyOfflineLatency: "50ms"}

// smallPlans starts the small plans at once, each of a tenant of its own,
// and returns how long each took to finish.
func smallPlans(ctx context.Context, r *rig, pc *planclient.Client, sz sizes, what string) ([]time.Duration, error) {
	var mu sync.Mutex
	var took []time.Duration
	err := runAll(sz.FairSmall, sz.FairSmall, func(i int) error {
		id := r.id("fair-" + what)
		req := externalRequest(sz.FairSmallSteps)
		req.Tenant = fmt.Sprintf("tenant-%d", i)
		t0 := time.Now()
		if _, err := pc.Start(ctx, id, req); err != nil {
			return fmt.Errorf("start %s: %w", id, err)
		}
		res, err := pc.Result(ctx, id)
		if err != nil || res.Status != signals.StatusCompleted {
			return fmt.Errorf("plan %s: %v %s", id, err, res.Error)
		}
		mu.Lock()
		took = append(took, time.Since(t0))
		mu.Unlock()
		return nil
	})
	return took, err
}

// waitRunningSteps waits until the plan id has at least n steps done.
func waitRunningSteps(ctx context.Context, pc *planclient.Client, id string, n int) error {
	for {
		p, err := pc.Progress(ctx, id)
		if err == nil && p.Totals.Completed >= n {
			return nil
		}
		if p.Phase == plan.PhaseFailed || p.Phase == plan.PhaseCancelled {
			return fmt.Errorf("big plan %s ended %s", id, p.Phase)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// slowest returns the longest of ds.
func slowest(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
