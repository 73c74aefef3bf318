package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// received is when a follower got each step-completed event of a plan,
// by seq.
type received struct {
	mu  sync.Mutex
	at  map[string]map[int64]time.Time
	err map[string]error
}

func (r *received) note(id string, seq int64, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at[id] == nil {
		r.at[id] = map[int64]time.Time{}
	}
	r.at[id][seq] = at
}

// followAll follows each plan of ids with planclient.Events until its log
// ends, noting when each step-completed event arrived. It returns at once;
// wait waits for the followers to end.
func followAll(ctx context.Context, pc *planclient.Client, ids []string) (rec *received, wait func()) {
	rec = &received{at: map[string]map[int64]time.Time{}, err: map[string]error{}}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e, err := range pc.Events(ctx, id, 0) {
				if err != nil {
					rec.mu.Lock()
					rec.err[id] = err
					rec.mu.Unlock()
					return
				}
				if e.Type == signals.EventStepCompleted {
					rec.note(id, e.Seq, time.Now())
				}
			}
		}()
	}
	return rec, wg.Wait
}

// measureFollow measures following under the latency load: LatencyPlans
// plans wait for a selection (the operators select them one by one, so
// they execute too) while LatencyBusy plans of LatencyBusySteps steps
// execute, each followed from its start by a planclient.Events iterator.
// For every step-completed event a follower gets, the latency is from the
// step's end (its activity's completion, as the history records it) to
// the follower getting the event.
func measureFollow(ctx context.Context, r *rig, sz sizes, rep *report) error {
	wp, err := r.startWorkerProc(ctx, "follow", nil)
	if err != nil {
		return err
	}
	defer wp.stop()
	waiting, err := startWaiting(ctx, r, wp.pc, "fwait", sz.LatencyPlans)
	if err != nil {
		return err
	}
	busy := make([]string, sz.LatencyBusy)
	for i := range busy {
		busy[i] = r.id("fbusy")
		if _, err := wp.pc.Start(ctx, busy[i], externalRequest(sz.LatencyBusySteps)); err != nil {
			return err
		}
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rec, wait := followAll(fctx, wp.pc, busy)
	all := append(slices.Clone(waiting), busy...)
	lat, err := operate(ctx, wp.pc, waiting, all)
	if err != nil {
		return err
	}
	for _, id := range busy {
		if _, err := wp.pc.Result(ctx, id); err != nil {
			return fmt.Errorf("result of %s: %w", id, err)
		}
	}
	wait()
	var ds []time.Duration
	for _, id := range busy {
		ends, err := stepEnds(ctx, r, id)
		if err != nil {
			return err
		}
		for seq, end := range ends {
			got, ok := rec.at[id][seq]
			if !ok {
				return fmt.Errorf("the follower of %s missed step-completed %d", id, seq)
			}
			ds = append(ds, got.Sub(end))
		}
	}
	kase := fmt.Sprintf("%d+%d plans, %d followers", sz.LatencyPlans, sz.LatencyBusy, len(busy))
	p99 := percentile(ds, 99)
	verdict := "meets ≤ 1 s"
	if p99 > time.Second {
		verdict = "misses ≤ 1 s"
	}
	r.logf("follow: step end to follower p50 %v p99 %v over %d steps; select p99 %v", percentile(ds, 50), p99, len(ds),
		percentile(lat.sel, 99))
	rep.add(secFollow, kase, "step→follower p50 ms", ms(percentile(ds, 50)), fmt.Sprintf("%d step-completed events", len(ds)))
	rep.add(secFollow, kase, "step→follower p99 ms", ms(p99), verdict)
	rep.add(secFollow, kase, "followers failed", float64(len(rec.err)), errorsNote(rec.err))
	rep.add(secFollow, kase, "select p99 ms", ms(percentile(lat.sel, 99)), "the operators' updates meanwhile")
	return nil
}

// errorsNote names the first follower error, if any.
func errorsNote(errs map[string]error) string {
	for id, err := range errs {
		return fmt.Sprintf("%s: %v", id, err)
	}
	return "none timed out or failed"
}

// stepEnds reads plan id's history (one run: the plans here do not
// continue as new) and returns, for each step-completed event of its log,
// when the step ended: the completion of the last activity before the
// marker that holds the event.
func stepEnds(ctx context.Context, r *rig, id string) (map[int64]time.Time, error) {
	ends := map[int64]time.Time{}
	var lastDone time.Time
	dc := converter.GetDefaultDataConverter()
	it := r.srv.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		he, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		switch he.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			lastDone = he.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			m := he.GetMarkerRecordedEventAttributes()
			var batch signals.EventBatch
			if m.GetMarkerName() != "SideEffect" || dc.FromPayloads(m.GetDetails()["data"], &batch) != nil ||
				batch.Log != signals.EventLogName {
				continue
			}
			for _, e := range batch.Events {
				if e.Type == signals.EventStepCompleted {
					ends[e.Seq] = lastDone
				}
			}
		}
	}
	if len(ends) == 0 {
		return nil, fmt.Errorf("plan %s logged no step-completed event", id)
	}
	return ends, nil
}

// measureFollowers runs a plan of FollowSteps llm steps with no follower
// and with Followers followers, alternating, FollowRuns times each, and
// compares the median times: with each follower its own
// planclient.Events reader, as many CLI followers would be, and with them
// all reading one `planmode serve` as Server-Sent Events, as browsers and
// services would; each on a model that answers at once (the plan does
// nothing but write events) and on one that takes FollowLatency a call.
func measureFollowers(ctx context.Context, r *rig, sz sizes, rep *report) error {
	for _, latency := range []time.Duration{0, sz.FollowLatency} {
		if err := followersAt(ctx, r, sz, rep, latency); err != nil {
			return err
		}
	}
	return nil
}

// followersAt is measureFollowers on a worker whose model calls take
// latency.
func followersAt(ctx context.Context, r *rig, sz sizes, rep *report, latency time.Duration) error {
	wp, err := r.startWorkerProc(ctx, "followers", map[string]string{config.KeyOfflineLatency: latency.String()})
	if err != nil {
		return err
	}
	defer wp.stop()
	sse, stop, err := startServe(ctx, r, wp.pc)
	if err != nil {
		return err
	}
	defer stop()
	for _, c := range []struct {
		name   string
		follow followFunc
	}{{"each its own reader", followAll}, {"through planmode serve", sse}} {
		var alone, followed []time.Duration
		for range sz.FollowRuns {
			t, err := timedPlan(ctx, r, wp.pc, sz.FollowSteps, 0, c.follow)
			if err != nil {
				return err
			}
			alone = append(alone, t)
			if t, err = timedPlan(ctx, r, wp.pc, sz.FollowSteps, sz.Followers, c.follow); err != nil {
				return err
			}
			followed = append(followed, t)
		}
		a, f := median(alone), median(followed)
		kase := fmt.Sprintf("%d llm steps, %v a call, %s", sz.FollowSteps, latency, c.name)
		r.logf("followers %s: %v alone, %v with %d followers", kase, a, f, sz.Followers)
		rep.add(secFollowers, kase, "0 followers s", a.Seconds(), fmt.Sprintf("median of %d", sz.FollowRuns))
		rep.add(secFollowers, kase, fmt.Sprintf("%d followers s", sz.Followers), f.Seconds(), "")
		ratio := f.Seconds() / a.Seconds()
		verdict := "within 10 %"
		if ratio > 1.1 {
			verdict = "beyond 10 %"
		}
		rep.add(secFollowers, kase, "ratio", ratio, verdict)
	}
	return nil
}

// followFunc follows each plan of ids from its start until its log ends,
// noting when each step-completed event arrived; wait waits for the
// followers to end.
type followFunc func(ctx context.Context, pc *planclient.Client, ids []string) (rec *received, wait func())

// timedPlan runs an external plan of n llm steps to its end with
// followers following it from its start, and returns how long it took.
func timedPlan(ctx context.Context, r *rig, pc *planclient.Client, n, followers int, follow followFunc) (time.Duration, error) {
	id := r.id("followed")
	t0 := time.Now()
	if _, err := pc.Start(ctx, id, externalRequest(n)); err != nil {
		return 0, err
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ids := make([]string, followers)
	for i := range ids {
		ids[i] = id
	}
	rec, wait := follow(fctx, pc, ids)
	res, err := pc.Result(ctx, id)
	took := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if res.Status != signals.StatusCompleted {
		return 0, fmt.Errorf("plan %s ended %s: %s", id, res.Status, res.Error)
	}
	wait()
	if len(rec.err) > 0 {
		return 0, errors.New(errorsNote(rec.err))
	}
	return took, nil
}

// measureStream compares the history bytes per step of a plan of
// StreamSteps llm steps whose model calls stream (the default) and do
// not (llm.stream false). Each model call of the offline model takes
// StreamLatency, so the calls that stream heartbeat their text while
// they run.
func measureStream(ctx context.Context, r *rig, sz sizes, rep *report) error {
	bytes := map[string]float64{}
	for _, stream := range []string{"false", "true"} {
		wp, err := r.startWorkerProc(ctx, "stream-"+stream, map[string]string{
			config.KeyLLMStream: stream, config.KeyOfflineLatency: sz.StreamLatency.String()})
		if err != nil {
			return err
		}
		pr, err := runPlanMode(ctx, wp.pc, r.id("stream"), sz.StreamSteps)
		wp.stop()
		if err != nil {
			return err
		}
		st, err := measureChain(ctx, r.srv.Client, r.srv.Namespace, pr.id, pr.firstRunID)
		if err != nil {
			return err
		}
		bytes[stream] = float64(st.bytes) / float64(sz.StreamSteps)
	}
	kase := fmt.Sprintf("%d llm steps, %v a call", sz.StreamSteps, sz.StreamLatency)
	rep.add(secStream, kase, "bytes/step streaming off", bytes["false"], "")
	rep.add(secStream, kase, "bytes/step streaming on", bytes["true"], "the text travels in heartbeats, not history")
	ratio := bytes["true"] / bytes["false"]
	verdict := "within 5 %"
	if ratio > 1.05 || ratio < 0.95 {
		verdict = "beyond 5 %"
	}
	rep.add(secStream, kase, "ratio", ratio, verdict)
	return nil
}
