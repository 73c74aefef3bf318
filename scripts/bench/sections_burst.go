package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// burstPlans is how many plans the burst section starts at once (quick
// mode: burstQuickPlans).
const (
	burstPlans      = 1000
	burstQuickPlans = 50
)

// measureBurst starts burstPlans PlanMode plans at once (a template chosen
// by the goal, auto selection) on the bench's worker and waits for every
// one to complete: the time until the last start returned, each plan's
// start call and its start to options (the await-options update), and how
// many updates the server refused or aborted meanwhile, counted in its
// log. Then as many bare workflows of one step at once: the same start
// figures, the floor.
func measureBurst(ctx context.Context, r *rig, sz sizes, rep *report) error {
	n := burstPlans
	if sz.Quick {
		n = burstQuickPlans
	}
	kase := fmt.Sprintf("%d plans at once", n)
	before := r.srvLog.counts()
	var retries atomic.Int64
	pm, err := burst(n, func(i int) (time.Duration, time.Duration, error) { return burstPlan(ctx, r, i, &retries) })
	if err != nil {
		return err
	}
	refused := r.srvLog.counts().minus(before)
	r.model.Reset()
	r.logf("burst %d plans: last start %v, start p99 %v, options p50 %v p99 %v, %v", n, pm.last,
		percentile(pm.starts, 99), percentile(pm.done, 50), percentile(pm.done, 99), refused)
	rep.add(secBurst, kase, "time to last start s", pm.last.Seconds(), "from the first start call to the last one's answer")
	rep.add(secBurst, kase, "start p50 ms", ms(percentile(pm.starts, 50)), "the start call")
	rep.add(secBurst, kase, "start p99 ms", ms(percentile(pm.starts, 99)), "")
	rep.add(secBurst, kase, "start→options p50 ms", ms(percentile(pm.done, 50)), "template auto, auto selection; every plan completed")
	rep.add(secBurst, kase, "start→options p99 ms", ms(percentile(pm.done, 99)), "")
	rep.add(secBurst, kase, "updates refused or aborted", float64(refused.total()), refused.String())
	rep.add(secBurst, kase, "start retries", float64(retries.Load()), "start calls that timed out or were refused, tried again")

	var bareRetries atomic.Int64
	bare, err := burst(n, func(int) (time.Duration, time.Duration, error) { return burstBare(ctx, r, &bareRetries) })
	if err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	r.model.Reset()
	rep.add(secBurst, kase, "bare time to last start s", bare.last.Seconds(), "the floor: bare workflows of one step, started at once")
	rep.add(secBurst, kase, "bare start p50 ms", ms(percentile(bare.starts, 50)), "")
	rep.add(secBurst, kase, "bare start p99 ms", ms(percentile(bare.starts, 99)), "")
	rep.add(secBurst, kase, "bare start retries", float64(bareRetries.Load()), "")
	return nil
}

// burstPlan starts plan i of a burst and runs it to its end: it returns
// how long its start took, and its start to options.
func burstPlan(ctx context.Context, r *rig, i int, retries *atomic.Int64) (started, options time.Duration, err error) {
	id := r.id("burst")
	req := signals.StartRequest{Goal: fmt.Sprintf("%s (%d)", benchGoal, i), Template: plan.TemplateAuto,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}}
	t0 := time.Now()
	err = startRetrying(ctx, retries, func() error {
		_, err := r.pc.Start(ctx, id, req)
		var already *serviceerror.WorkflowExecutionAlreadyStarted
		if errors.As(err, &already) {
			return nil // an earlier try that timed out started it
		}
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	started = time.Since(t0)
	if _, err := signals.AwaitOptions.Update(ctx, r.srv.Client, id, signals.AwaitOptionsRequest{}); err != nil {
		return 0, 0, fmt.Errorf("options of %s: %w", id, err)
	}
	options = time.Since(t0)
	res, err := r.pc.Result(ctx, id)
	if err == nil && res.Status != signals.StatusCompleted {
		err = fmt.Errorf("plan %s ended %s: %s", id, res.Status, res.Error)
	}
	return started, options, err
}

// burstBare starts a bare workflow of one step and runs it to its end: it
// returns how long its start took, twice.
func burstBare(ctx context.Context, r *rig, retries *atomic.Int64) (started, _ time.Duration, err error) {
	id := r.id("burst-bare")
	p := signals.ExternalPlan{Title: "Signup validation", Steps: llmSteps(1)}.Plan(id, id, benchGoal, time.Now())
	t0 := time.Now()
	var run client.WorkflowRun
	// A start again after one that timed out answers the run that one
	// started (the SDK's default for an id already started).
	err = startRetrying(ctx, retries, func() error {
		var err error
		run, err = r.srv.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: inProcessQueue},
			bareWorkflowType, bareInput{Goal: benchGoal, Plan: p})
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	started = time.Since(t0)
	return started, started, run.Get(ctx, nil)
}

// startRetrying calls start until it succeeds or fails otherwise than by
// the server's deadline, load shedding or unavailability, as a client
// starting a burst of plans would, at most ten times; retries counts the
// tries again.
func startRetrying(ctx context.Context, retries *atomic.Int64, start func() error) error {
	wait := 200 * time.Millisecond
	for try := 1; ; try++ {
		err := start()
		var exhausted *serviceerror.ResourceExhausted
		var unavailable *serviceerror.Unavailable
		again := isTimeout(err) || errors.As(err, &exhausted) || errors.As(err, &unavailable)
		if !again || try == 10 || ctx.Err() != nil {
			return err
		}
		retries.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// burstTimes are a burst's start call times, each job's measured time
// (start to options, or the start for the floor), and when the last start
// returned, from the first call.
type burstTimes struct {
	starts, done []time.Duration
	last         time.Duration
}

// burst runs job(i) for i in [0, n) all at once. job starts one workflow
// and returns how long its start call took and how long its measured part
// took. Any error ends the burst.
func burst(n int, job func(i int) (started, took time.Duration, err error)) (burstTimes, error) {
	var (
		mu    sync.Mutex
		out   burstTimes
		first error
		wg    sync.WaitGroup
	)
	t0 := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			called := time.Since(t0)
			started, took, err := job(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			out.starts, out.done = append(out.starts, started), append(out.done, took)
			out.last = max(out.last, called+started)
		}()
	}
	wg.Wait()
	return out, first
}

// serverRefusals are lines of the dev server's log that say it refused or
// aborted an update.
type serverRefusals struct {
	inFlight, aborted, exhausted int
}

func (s serverRefusals) minus(o serverRefusals) serverRefusals {
	return serverRefusals{s.inFlight - o.inFlight, s.aborted - o.aborted, s.exhausted - o.exhausted}
}

func (s serverRefusals) total() int { return s.inFlight + s.aborted + s.exhausted }

func (s serverRefusals) String() string {
	return fmt.Sprintf("server log: %d in-flight update limit, %d aborted, %d other resource exhausted", s.inFlight, s.aborted, s.exhausted)
}

// serverLog is the dev server's log: written on to w, and its lines that
// refuse or abort an update counted.
type serverLog struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	n       serverRefusals
}

// Write counts the whole lines in p and passes p on.
func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.count(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	l.mu.Unlock()
	return l.w.Write(p)
}

// count counts one line; l.mu is held.
func (l *serverLog) count(line string) {
	switch {
	case strings.Contains(line, "in-flight updates"):
		l.n.inFlight++
	case strings.Contains(line, "update was aborted"):
		l.n.aborted++
	case strings.Contains(line, "ResourceExhausted") || strings.Contains(strings.ToLower(line), "resource exhausted"):
		l.n.exhausted++
	}
}

// counts returns the lines counted so far.
func (l *serverLog) counts() serverRefusals {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}
