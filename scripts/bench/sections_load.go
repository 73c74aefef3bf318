package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// starters is how many plans the bench starts at once: enough to keep the
// server's queue full without one connection per plan.
const starters = 64

// measureConcurrency starts each count of PlanMode plans and as many bare
// workflows at once, interleaved, on the in-process worker, so both see
// the same load: plans per second of each (count over the time until its
// last one ended) and their ratio. Then PlanMode alone on a fresh worker
// process: plans per second and the process's resident memory.
func measureConcurrency(ctx context.Context, r *rig, sz sizes, rep *report) error {
	n := sz.ConcurrentSteps
	for _, count := range sz.Concurrent {
		kase := fmt.Sprintf("%d plans × %d steps", count, n)
		var mu sync.Mutex
		var pmLast, bareLast time.Duration
		t0 := time.Now()
		err := runAll(2*count, starters, func(i int) error {
			var err error
			if i%2 == 0 {
				_, err = runPlanMode(ctx, r.pc, r.id("conc"), n)
			} else {
				_, err = runBare(ctx, r.srv.Client, inProcessQueue, r.id("conc-bare"), n)
			}
			mu.Lock()
			defer mu.Unlock()
			if i%2 == 0 {
				pmLast = max(pmLast, time.Since(t0))
			} else {
				bareLast = max(bareLast, time.Since(t0))
			}
			return err
		})
		if err != nil {
			return err
		}
		r.model.Reset()
		pmRate, bareRate := float64(count)/pmLast.Seconds(), float64(count)/bareLast.Seconds()
		r.logf("concurrency %d: planmode %.1f plans/s, bare %.1f plans/s", count, pmRate, bareRate)
		rep.add(secConcurrency, kase, "planmode plans/s", pmRate, "in-process worker, beside the bare ones")
		rep.add(secConcurrency, kase, "bare plans/s", bareRate, "in-process worker, beside planmode")
		rep.add(secConcurrency, kase, "ratio", bareRate/pmRate, "bare rate ÷ planmode rate")
		if err := concurrencyOnProcess(ctx, r, rep, kase, count, n); err != nil {
			return err
		}
	}
	return nil
}

// concurrencyOnProcess runs count plans at once on a fresh worker process
// and reports its rate and memory.
func concurrencyOnProcess(ctx context.Context, r *rig, rep *report, kase string, count, n int) error {
	wp, err := r.startWorkerProc(ctx, fmt.Sprintf("conc%d", count), nil)
	if err != nil {
		return err
	}
	defer wp.stop()
	idle, err := wp.rssMiB()
	if err != nil {
		return err
	}
	wp.resetPeak()
	took, err := timeAll(count, func(i int) error {
		_, err := runPlanMode(ctx, wp.pc, r.id("conc-proc"), n)
		return err
	})
	if err != nil {
		return err
	}
	end, err := wp.rssMiB()
	if err != nil {
		return err
	}
	hwm, err := wp.hwmMiB()
	if err != nil {
		return err
	}
	rate := float64(count) / took.Seconds()
	r.logf("concurrency %d on a worker process: %.1f plans/s, RSS peak %.0f MiB, end %.0f MiB", count, rate, wp.peakMiB(), end)
	rep.add(secConcurrency, kase, "worker process plans/s", rate, "bin/planmode-worker")
	rep.add(secConcurrency, kase, "worker RSS peak MiB", max(wp.peakMiB(), hwm), fmt.Sprintf("idle %.0f MiB", idle))
	rep.add(secConcurrency, kase, "worker RSS end MiB", end, "after every plan ended")
	return nil
}

// timeAll runs job for i in [0, count) with starters at once and returns
// the wall time of the whole.
func timeAll(count int, job func(i int) error) (time.Duration, error) {
	t0 := time.Now()
	err := runAll(count, starters, job)
	return time.Since(t0), err
}

// measureMemory holds plans waiting for a selection on a fresh worker
// process and reports its resident memory, in all and per plan over the
// idle worker's.
func measureMemory(ctx context.Context, r *rig, sz sizes, rep *report) error {
	wp, err := r.startWorkerProc(ctx, "waiting", nil)
	if err != nil {
		return err
	}
	defer wp.stop()
	idle, err := wp.rssMiB()
	if err != nil {
		return err
	}
	count := sz.Waiting
	if _, err := startWaiting(ctx, r, wp.pc, "wait", count); err != nil {
		return err
	}
	rss, err := wp.rssMiB()
	if err != nil {
		return err
	}
	hwm, err := wp.hwmMiB()
	if err != nil {
		return err
	}
	kase := fmt.Sprintf("%d plans waiting", count)
	r.logf("%s: RSS %.0f MiB (idle %.0f MiB)", kase, rss, idle)
	rep.add(secMemory, kase, "worker RSS MiB", rss, fmt.Sprintf("idle %.0f MiB, peak %.0f MiB; target < 512 MiB for 1,000", idle, hwm))
	rep.add(secMemory, kase, "KiB per plan", (rss-idle)*1024/float64(count), "(RSS − idle) ÷ plans")
	return nil
}

// startWaiting starts count plans with manual selection (the default) on
// pc's queue and waits until visibility shows them all awaiting it.
func startWaiting(ctx context.Context, r *rig, pc *planclient.Client, kind string, count int) ([]string, error) {
	ids := make([]string, count)
	for i := range ids {
		ids[i] = r.id(kind)
	}
	err := runAll(count, starters, func(i int) error {
		_, err := pc.Start(ctx, ids[i], signals.StartRequest{Goal: fmt.Sprintf("%s (%d)", benchGoal, i)})
		return err
	})
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("TaskQueue = '%s' AND %s = '%s'", pc.TaskQueue(), signals.AwaitingAttr.GetName(), signals.AwaitingSelection)
	deadline := time.Now().Add(time.Duration(count)*200*time.Millisecond + time.Minute)
	for {
		resp, err := countWorkflows(ctx, r, q)
		if err != nil {
			return nil, err
		}
		if resp >= int64(count) {
			return ids, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d plans await a selection", resp, count)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
