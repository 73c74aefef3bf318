package serve

import (
	"context"
	"iter"
	"sync"

	"github.com/planmode/planmode/signals"
)

// The hub shares one upstream Follow of a plan among the followers near
// its head, so that a hundred browsers watching a plan cost the plan one
// long poll, not a hundred. Each shared upstream is a feed: it pulls the
// plan's events into a ring of the most recent ones and wakes its
// subscribers, which read the ring at their own pace. A subscriber whose
// next event has left the ring (it reads slower than the plan writes),
// or that asks for events older than the ring holds, follows the Source
// on its own from where it is: it misses nothing, and the ring, not the
// slowest reader, bounds what the server holds per plan.

// hub holds the feeds of the plans being followed.
type hub struct {
	src      Source
	ringSize int

	mu    sync.Mutex
	feeds map[string]*feed
}

func newHub(src Source, ringSize int) *hub {
	return &hub{src: src, ringSize: ringSize, feeds: map[string]*feed{}}
}

// feed is one upstream Follow of a plan and the ring of what it read.
// Events are numbered by arrival (their index); the ring holds indexes
// total-len(ring)..total-1.
type feed struct {
	plan   string
	cancel context.CancelFunc

	mu    sync.Mutex
	ring  []signals.Event
	total int64
	// floor is the Seq after which the ring holds every event the feed
	// read: where it started, then the Seq of the last event evicted. A
	// follower that has seen floor or more can be served from the ring.
	floor int64
	done  bool
	err   error
	// wake is closed, and replaced, whenever an event arrives or the feed
	// ends.
	wake chan struct{}
	subs int
}

// Active is how many plans have a shared upstream Follow open.
func (h *hub) active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.feeds)
}

// follow yields the events of plan after sequence number after, through
// the plan's feed when it can serve them, else from the Source directly.
// It ends when the plan's log ends, on an error (yielded) or when ctx
// ends.
func (h *hub) follow(ctx context.Context, plan string, after int64) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		last := after
		if f, cursor, ok := h.join(plan, after); ok {
			var stop bool
			last, stop = h.readFeed(ctx, f, cursor, last, yield)
			h.leave(f)
			if stop {
				return
			}
		}
		for ev, err := range h.src.Follow(ctx, plan, last) {
			if err != nil {
				yield(signals.Event{}, err)
				return
			}
			if !fresh(ev, last) {
				continue
			}
			if !yield(ev, nil) {
				return
			}
			last = advance(ev, last)
		}
	}
}

// fresh reports whether ev is news to a follower that has seen up to
// last: a later event, or a running model call's text, which is never
// numbered.
func fresh(ev signals.Event, last int64) bool {
	return ev.Type == signals.EventModelText || ev.Seq > last
}

// advance is the last Seq seen once ev is.
func advance(ev signals.Event, last int64) int64 {
	return max(last, ev.Seq)
}

// join subscribes to plan's feed, starting one when there is none, and
// returns the index of the first event after after; false when the
// feed has already dropped events the follower has not seen.
func (h *hub) join(plan string, after int64) (*feed, int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.feeds[plan]
	if f == nil {
		f = h.start(plan, after)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if after < f.floor {
		return nil, 0, false
	}
	f.subs++
	cursor := f.total - int64(len(f.ring))
	for _, ev := range f.ring {
		if ev.Seq > after {
			break
		}
		cursor++
	}
	return f, cursor, true
}

// start starts the feed of plan from after; h.mu is held.
func (h *hub) start(plan string, after int64) *feed {
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{plan: plan, cancel: cancel, floor: after, wake: make(chan struct{})}
	h.feeds[plan] = f
	go h.pull(ctx, f, after)
	return f
}

// pull reads the plan's events from the Source into f until the log
// ends, it fails or the last subscriber leaves.
func (h *hub) pull(ctx context.Context, f *feed, after int64) {
	var failed error
	for ev, err := range h.src.Follow(ctx, f.plan, after) {
		if err != nil {
			failed = err
			break
		}
		f.push(ev, h.ringSize)
	}
	h.mu.Lock()
	if h.feeds[f.plan] == f {
		delete(h.feeds, f.plan)
	}
	h.mu.Unlock()
	f.mu.Lock()
	f.done, f.err = true, failed
	close(f.wake)
	f.mu.Unlock()
}

// push adds ev to the ring, dropping the oldest event when it is full,
// and wakes the subscribers.
func (f *feed) push(ev signals.Event, size int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ring) == size {
		f.floor = max(f.floor, f.ring[0].Seq)
		// Shift rather than wrap: the ring is small, and a plain slice
		// keeps join's scan simple.
		copy(f.ring, f.ring[1:])
		f.ring = f.ring[:size-1]
	}
	f.ring = append(f.ring, ev)
	f.total++
	close(f.wake)
	f.wake = make(chan struct{})
}

// leave unsubscribes from f; the last to leave stops its upstream.
func (h *hub) leave(f *feed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f.mu.Lock()
	f.subs--
	last := f.subs == 0
	f.mu.Unlock()
	if last {
		if h.feeds[f.plan] == f {
			delete(h.feeds, f.plan)
		}
		f.cancel()
	}
}

// Outcomes of feed.next.
const (
	gotEvent = iota
	fellBehind
	feedEnded
	cancelled
)

// next waits for the event of index cursor.
func (f *feed) next(ctx context.Context, cursor int64) (signals.Event, int) {
	for {
		f.mu.Lock()
		oldest := f.total - int64(len(f.ring))
		switch {
		case cursor < oldest:
			f.mu.Unlock()
			return signals.Event{}, fellBehind
		case cursor < f.total:
			ev := f.ring[cursor-oldest]
			f.mu.Unlock()
			return ev, gotEvent
		case f.done:
			f.mu.Unlock()
			return signals.Event{}, feedEnded
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return signals.Event{}, cancelled
		}
	}
}

// readFeed yields f's events from index cursor to a follower that has
// seen up to last, and returns the last Seq it has seen then and whether
// the follow is over (the log ended, it failed, the follower stopped or
// ctx ended). It returns false when the follower fell behind the ring
// and must go on from the Source.
func (h *hub) readFeed(ctx context.Context, f *feed, cursor, last int64,
	yield func(signals.Event, error) bool) (int64, bool) {
	for {
		ev, outcome := f.next(ctx, cursor)
		switch outcome {
		case fellBehind:
			return last, false
		case cancelled:
			return last, true
		case feedEnded:
			f.mu.Lock()
			err := f.err
			f.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				yield(signals.Event{}, err)
			}
			return last, true
		}
		cursor++
		if !fresh(ev, last) {
			continue
		}
		if !yield(ev, nil) {
			return last, true
		}
		last = advance(ev, last)
	}
}
