// Package heartbeat keeps a running activity visibly alive: it works out
// how often to heartbeat from the activity's heartbeat timeout, records
// heartbeats, and runs the ticker that heartbeats while a long call (an
// LLM request) blocks. Outside an activity, as in a plain unit test,
// everything here does nothing: activity.RecordHeartbeat would panic.
package heartbeat

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// PerTimeout is how many heartbeats an activity sends at least within its
// heartbeat timeout, so that one late beat does not make a live worker
// look dead.
const PerTimeout = 3

// DefaultInterval is how often Start heartbeats when given no interval.
const DefaultInterval = 10 * time.Second

// Cap returns the longest an activity running in ctx may go between
// heartbeats: a PerTimeout-th of its heartbeat timeout. It is zero (no
// cap) outside an activity or when the activity has no heartbeat timeout.
func Cap(ctx context.Context) time.Duration {
	if !activity.IsActivity(ctx) {
		return 0
	}
	return activity.GetInfo(ctx).HeartbeatTimeout / PerTimeout
}

// Interval returns every (DefaultInterval when not positive), or limit when
// limit is set and shorter: a plan's short heartbeat timeout wins over the
// worker's interval, a long one leaves it alone.
func Interval(every, limit time.Duration) time.Duration {
	if every <= 0 {
		every = DefaultInterval
	}
	if limit > 0 && limit < every {
		return limit
	}
	return every
}

// Recorder returns a function that records a heartbeat with details for
// the activity running in ctx, or nil outside an activity.
func Recorder(ctx context.Context) func(details ...any) {
	if !activity.IsActivity(ctx) {
		return nil
	}
	return func(details ...any) { activity.RecordHeartbeat(ctx, details...) }
}

// Start records a heartbeat with details every Interval(every, Cap(ctx))
// until the returned stop is called or ctx ends; stop returns once the
// ticker has ended. Outside an activity it does nothing.
func Start(ctx context.Context, every time.Duration, details ...any) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	t := time.NewTicker(Interval(every, Cap(ctx)))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details...)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
