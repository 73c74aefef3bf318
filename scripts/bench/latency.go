package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// operators is how many operators send updates and queries at once.
const operators = 4

// latencyTarget is the p99 a select-option update should stay within.
const latencyTarget = 250 * time.Millisecond

// measureLatency runs, for each worker variant on a fresh worker process,
// plans waiting for a selection beside plans executing, and times the
// select-option update sent to each waiting plan (which then executes
// too) and a progress read (planclient.Progress) and a standing of a
// random plan after each.
func measureLatency(ctx context.Context, r *rig, sz sizes, rep *report) error {
	for _, v := range sz.LatencyVariants {
		if err := latencyVariant(ctx, r, sz, rep, v); err != nil {
			return fmt.Errorf("%s: %w", v.Name, err)
		}
	}
	return nil
}

// latencyVariant measures one worker variant.
func latencyVariant(ctx context.Context, r *rig, sz sizes, rep *report, v workerVariant) error {
	wp, err := r.startWorkerProc(ctx, "latency", v.Settings)
	if err != nil {
		return err
	}
	defer wp.stop()
	waiting, err := startWaiting(ctx, r, wp.pc, "select", sz.LatencyPlans)
	if err != nil {
		return err
	}
	// The busy plans run while the operators work. The variant's worker
	// stops after: its plans stay open on a queue no worker polls, which
	// costs the next variant nothing.
	busy := make([]string, sz.LatencyBusy)
	for i := range busy {
		busy[i] = r.id("busy")
		if _, err := wp.pc.Start(ctx, busy[i], externalRequest(sz.LatencyBusySteps)); err != nil {
			return err
		}
	}
	all := append(slices.Clone(waiting), busy...)
	lat, err := operate(ctx, wp.pc, waiting, all)
	if err != nil {
		return err
	}
	traces := traceSlowest(ctx, r, lat.calls, max(3, len(lat.calls)/50))
	sel, prog, stand := lat.sel, lat.prog, lat.standing
	kase := fmt.Sprintf("%d+%d plans, %s", sz.LatencyPlans, sz.LatencyBusy, v.Name)
	p99 := percentile(sel, 99)
	verdict := "meets ≤ 250 ms"
	if p99 > latencyTarget {
		verdict = "misses ≤ 250 ms"
	}
	r.logf("latency %s: select p50 %v p99 %v, progress p50 %v p99 %v, standing p50 %v p99 %v", v.Name,
		percentile(sel, 50), p99, percentile(prog, 50), percentile(prog, 99), percentile(stand, 50), percentile(stand, 99))
	rep.add(secLatency, kase, "select p50 ms", ms(percentile(sel, 50)),
		fmt.Sprintf("%d updates, %d timed out (%v)", len(sel), lat.timedOut[opSelect], opTimeout))
	rep.add(secLatency, kase, "select p99 ms", ms(p99), verdict)
	r.logf("latency %s: %s", v.Name, traceSummary(traces))
	rep.add(secLatency, kase, "progress p50 ms", ms(percentile(prog, 50)),
		fmt.Sprintf("%d reads (planclient.Progress), %d hit a deadline, %d failed", len(prog), lat.timedOut[opProgress], lat.failed[opProgress]))
	rep.add(secLatency, kase, "progress p99 ms", ms(percentile(prog, 99)), "")
	rep.add(secLatency, kase, "standing p50 ms", ms(percentile(stand, 50)),
		fmt.Sprintf("what show and watch ask: %d; %d from the log, %d from search attributes, %d failed", len(stand),
			lat.sources[planclient.SourceLog], lat.sources[planclient.SourceSearchAttributes],
			lat.failed[opStanding]))
	rep.add(secLatency, kase, "standing p99 ms", ms(percentile(stand, 99)),
		fmt.Sprintf("query timeout %v", planclient.DefaultQueryTimeout))
	return nil
}

// opTimeout bounds each update and query. One that times out, here or on
// the SDK's own deadline of a call (10 s for a query), counts with the
// time it took.
const opTimeout = 30 * time.Second

// The operations an operator times.
const (
	opSelect   = "select"
	opProgress = "progress"
	opStanding = "standing"
)

// latencies are the times of each kind of operation, how many of each hit
// a deadline or failed otherwise, and where the standings came from.
type latencies struct {
	sel, prog, standing []time.Duration
	// calls are the select-option updates, for tracing the slowest.
	calls            []selectCall
	timedOut, failed map[string]int
	// sources counts the standings by where they came from.
	sources map[string]int
}

// operate sends, from operators goroutines, a select-option update (rank
// 1) to each of waiting and, after each, a progress query and a standing
// (planclient.Client.Standing, what show and watch ask) to a random plan of
// all. Any error but a deadline ends it.
func operate(ctx context.Context, pc *planclient.Client, waiting, all []string) (latencies, error) {
	var mu sync.Mutex
	lat := latencies{timedOut: map[string]int{}, failed: map[string]int{}, sources: map[string]int{}}
	timed := func(op string, f func(ctx context.Context) error) (time.Duration, error) {
		octx, cancel := context.WithTimeout(ctx, opTimeout)
		defer cancel()
		t0 := time.Now()
		err := f(octx)
		took := time.Since(t0)
		switch {
		case err == nil || ctx.Err() != nil:
		case isTimeout(err):
			mu.Lock()
			lat.timedOut[op]++
			mu.Unlock()
			return took, nil
		case op != opSelect:
			// A read that fails (a worker missing its poll under load) is
			// counted and reported, not the end of the measurement.
			mu.Lock()
			lat.failed[op]++
			mu.Unlock()
			return took, nil
		}
		return took, err
	}
	err := runAll(len(waiting), operators, func(i int) error {
		sent := time.Now()
		s, err := timed(opSelect, func(ctx context.Context) error {
			_, err := pc.Select(ctx, waiting[i], signals.SelectOptionRequest{Rank: 1, Feedback: "go ahead"})
			return err
		})
		if err != nil {
			return fmt.Errorf("select on %s: %w", waiting[i], err)
		}
		id := all[rand.IntN(len(all))]
		p, err := timed(opProgress, func(ctx context.Context) error {
			_, err := pc.Progress(ctx, id)
			return err
		})
		if err != nil {
			return fmt.Errorf("progress of %s: %w", id, err)
		}
		source := ""
		st, err := timed(opStanding, func(ctx context.Context) error {
			s, err := pc.Standing(ctx, id)
			source = s.Source
			return err
		})
		if err != nil {
			return fmt.Errorf("standing of %s: %w", id, err)
		}
		mu.Lock()
		lat.sel, lat.prog, lat.standing = append(lat.sel, s), append(lat.prog, p), append(lat.standing, st)
		lat.calls = append(lat.calls, selectCall{planID: waiting[i], sent: sent, took: s})
		lat.sources[source]++
		mu.Unlock()
		return nil
	})
	return lat, err
}

// isTimeout reports whether err is a deadline that passed, the caller's
// or the server's.
func isTimeout(err error) bool {
	var de *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de)
}

// percentile returns the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// countWorkflows counts the workflows visibility finds for query.
func countWorkflows(ctx context.Context, r *rig, query string) (int64, error) {
	resp, err := r.srv.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
		Namespace: r.srv.Namespace, Query: query})
	if err != nil {
		return 0, fmt.Errorf("count %q: %w", query, err)
	}
	return resp.GetCount(), nil
}
