package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

// fakeSource is a Source of plans held in memory: each has a tenant and
// a log that tests append to and end. An endless plan makes up events as
// fast as they are pulled, for the tests of slow readers.
type fakeSource struct {
	mu    sync.Mutex
	plans map[string]*fakePlan

	// follows counts Follow calls; open counts those still running;
	// pulled counts the events all of them yielded.
	follows atomic.Int64
	open    atomic.Int64
	pulled  atomic.Int64
}

type fakePlan struct {
	tenant  string
	events  []signals.Event
	ended   bool
	endless bool
	// wake is closed, and replaced, when the log grows or ends.
	wake chan struct{}
}

func newFakeSource() *fakeSource { return &fakeSource{plans: map[string]*fakePlan{}} }

// add makes plan id of tenant with events 1..n.
func (f *fakeSource) add(id, tenant string, n int) {
	f.mu.Lock()
	f.plans[id] = &fakePlan{tenant: tenant, wake: make(chan struct{})}
	f.mu.Unlock()
	f.append(id, n)
}

// addEndless makes plan id, whose log never ends and always has more.
func (f *fakeSource) addEndless(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plans[id] = &fakePlan{endless: true, wake: make(chan struct{})}
}

// append adds n events to plan id's log.
func (f *fakeSource) append(id string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.plans[id]
	for range n {
		seq := int64(len(p.events) + 1)
		p.events = append(p.events, fakeEvent(id, seq, 16))
	}
	close(p.wake)
	p.wake = make(chan struct{})
}

// end ends plan id's log.
func (f *fakeSource) end(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.plans[id]
	p.ended = true
	close(p.wake)
	p.wake = make(chan struct{})
}

// fakeEvent is event seq of plan id with a message of size bytes.
func fakeEvent(id string, seq int64, size int) signals.Event {
	return signals.Event{Seq: seq, At: time.Unix(seq, 0).UTC(), Type: signals.EventStepStarted, PlanID: id,
		Message: strings.Repeat("x", size)}
}

func (f *fakeSource) plan(id string) (*fakePlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.plans[id]
	if !ok {
		return nil, fmt.Errorf("plan %s: %w", id, serve.ErrUnknownPlan)
	}
	return p, nil
}

func (f *fakeSource) Tenant(_ context.Context, id string) (string, error) {
	p, err := f.plan(id)
	if err != nil {
		return "", err
	}
	return p.tenant, nil
}

func (f *fakeSource) State(_ context.Context, id string) (json.RawMessage, error) {
	p, err := f.plan(id)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return json.Marshal(map[string]any{"planId": id, "events": len(p.events), "ended": p.ended})
}

func (f *fakeSource) Follow(ctx context.Context, id string, after int64) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		f.follows.Add(1)
		f.open.Add(1)
		defer f.open.Add(-1)
		p, err := f.plan(id)
		if err != nil {
			yield(signals.Event{}, err)
			return
		}
		if p.endless {
			for seq := after + 1; ctx.Err() == nil; seq++ {
				f.pulled.Add(1)
				if !yield(fakeEvent(id, seq, 4<<10), nil) {
					return
				}
			}
			return
		}
		for {
			ev, ok, ended, wake := f.next(p, after)
			switch {
			case ok:
				f.pulled.Add(1)
				if !yield(ev, nil) {
					return
				}
				after = ev.Seq
				continue
			case ended:
				return
			}
			select {
			case <-wake:
			case <-ctx.Done():
				return
			}
		}
	}
}

// next returns the event after after, or whether the log ended, or what
// to wait on.
func (f *fakeSource) next(p *fakePlan, after int64) (signals.Event, bool, bool, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if after < int64(len(p.events)) {
		return p.events[after], true, false, nil
	}
	return signals.Event{}, false, p.ended, p.wake
}

// textSource yields a model call's text first, then the fake's events.
type textSource struct{ *fakeSource }

func (s *textSource) Follow(ctx context.Context, id string, after int64) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		if !yield(signals.Event{Type: signals.EventModelText, Data: json.RawMessage(`{"delta":"Hel"}`)}, nil) {
			return
		}
		s.fakeSource.Follow(ctx, id, after)(yield)
	}
}

// failingSource yields the fake's events, then fails once it has none.
type failingSource struct{ *fakeSource }

func (s *failingSource) Follow(_ context.Context, id string, after int64) iter.Seq2[signals.Event, error] {
	return func(yield func(signals.Event, error) bool) {
		p, err := s.plan(id)
		if err != nil {
			yield(signals.Event{}, err)
			return
		}
		for {
			ev, ok, _, _ := s.next(p, after)
			if !ok {
				yield(signals.Event{}, errors.New("temporal is unreachable"))
				return
			}
			if !yield(ev, nil) {
				return
			}
			after = ev.Seq
		}
	}
}
