// Package heartbeat keeps a running activity visibly alive: it works out
// how often to heartbeat from the activity's heartbeat timeout, records
// heartbeats, and runs the ticker that heartbeats while a long call (an
// LLM request) blocks. An activity whose heartbeat shows something a
// person reads (the text of a model call) keeps it there with
// [WithDetails] while the parts it calls beat. Outside an activity, as in
// a plain unit test, everything here does nothing: activity.RecordHeartbeat
// would panic.
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

// detailsKey is the context key of the details WithDetails sets.
type detailsKey struct{}

// WithDetails returns ctx in which the heartbeats Recorder and Start
// record carry what details returns in place of their own, whenever it
// returns something other than nil: the parts an activity calls go on
// keeping it alive, and its heartbeat goes on showing what the activity
// put there. details is called from the goroutines that beat, at once.
func WithDetails(ctx context.Context, details func() any) context.Context {
	return context.WithValue(ctx, detailsKey{}, details)
}

// record records a heartbeat of the activity running in ctx: with the
// details WithDetails set, else with details.
func record(ctx context.Context, details []any) {
	if pinned, ok := ctx.Value(detailsKey{}).(func() any); ok {
		if d := pinned(); d != nil {
			activity.RecordHeartbeat(ctx, d)
			return
		}
	}
	activity.RecordHeartbeat(ctx, details...)
}

// Recorder returns a function that records a heartbeat with details for
// the activity running in ctx (those of WithDetails when ctx has some),
// or nil outside an activity.
func Recorder(ctx context.Context) func(details ...any) {
	if !activity.IsActivity(ctx) {
		return nil
	}
	return func(details ...any) { record(ctx, details) }
}

// Start records a heartbeat with details (those of WithDetails when ctx
// has some) every Interval(every, Cap(ctx)) until the returned stop is
// called or ctx ends; stop returns once the ticker has ended. Outside an
// activity it does nothing.
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
				record(ctx, details)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
