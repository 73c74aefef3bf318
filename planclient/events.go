package planclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/signals"
)

// Events returns the events of plan planID's log after sequence number
// after (0: from the start), in order, as they happen: the iterator waits
// while nothing happens and ends after the plan's last event, once the
// plan has ended. It reads them from the plan's history with the server's
// long poll, at most one read every FollowEvery, so following waits on the
// server, not on a worker, and adds nothing to the plan's history; it goes on across continue-as-new. When
// the events after after are no longer kept (older than the run that
// holds the log now and the recent events it carries), it yields one
// signals.EventGap carrying the plan's standing, then the events it has.
// With [WithModelText] it also yields the text of running model calls as
// it arrives (signals.EventModelText, not in the log).
//
// An error ends the iteration: the plan cannot be found, the server
// cannot be reached, or ctx ended.
func (c *Client) Events(ctx context.Context, planID string, after int64, opts ...FollowOption) iter.Seq2[signals.Event, error] {
	var o followOptions
	for _, fn := range opts {
		fn(&o)
	}
	return func(yield func(signals.Event, error) bool) {
		if after < 0 {
			yield(signals.Event{}, wrap(planID, fmt.Errorf("events after %d: want 0 or more", after)))
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		items := make(chan followed)
		go func() {
			f := follower{c: c, planID: planID, last: after, out: items}
			f.send(ctx, followed{err: f.follow(ctx), done: true})
		}()
		var ticks <-chan time.Time
		if o.text {
			t := time.NewTicker(o.every())
			defer t.Stop()
			ticks = t.C
		}
		var seen map[string]TextSeen
		last := after
		for {
			select {
			case it := <-items:
				if it.done {
					if it.err != nil {
						yield(signals.Event{}, it.err)
					}
					return
				}
				last = it.ev.Seq
				if !yield(it.ev, nil) {
					return
				}
			case <-ticks:
				calls, err := c.RunningText(ctx, planID)
				if err != nil {
					// The log goes on; the text shows again at the next
					// look that works.
					continue
				}
				var deltas []signals.ModelTextDelta
				deltas, seen = TextDeltas(seen, calls)
				for _, d := range deltas {
					if !yield(modelTextEvent(planID, last, d), nil) {
						return
					}
				}
			}
		}
	}
}

// FollowOption changes what [Client.Events] yields.
type FollowOption func(*followOptions)

type followOptions struct {
	text      bool
	textEvery time.Duration
}

func (o followOptions) every() time.Duration {
	if o.textEvery > 0 {
		return o.textEvery
	}
	return DefaultTextEvery
}

// DefaultTextEvery is how often [WithModelText] looks at the plan's
// running model calls: their activities send the text at most once a
// second, so looking more often shows nothing sooner.
const DefaultTextEvery = time.Second

// WithModelText makes [Client.Events] yield the text of the plan's running
// model calls as it arrives, as signals.EventModelText events between the
// log's (their Seq is the last log event's). The text is not in the log
// or in history: the model activities send it with their heartbeats,
// which the server keeps with the running activity, and the iterator
// looks at them every every (DefaultTextEvery when zero). A call that
// starts over (a worker died, a retry) is told with Restarted.
func WithModelText(every time.Duration) FollowOption {
	return func(o *followOptions) { o.text, o.textEvery = true, every }
}

// modelTextEvent is the event that carries d, after the log's event last.
func modelTextEvent(planID string, last int64, d signals.ModelTextDelta) signals.Event {
	data, _ := json.Marshal(d) // plain fields: cannot fail
	return signals.Event{Seq: last, At: time.Now().UTC(), Type: signals.EventModelText, PlanID: planID, Message: d.Text, Data: data}
}

// followed is one thing the history reader hands the iterator: an event,
// or the end (with the error that ended it, if any).
type followed struct {
	ev   signals.Event
	err  error
	done bool
}

// follower reads a plan's log from its history, run after run.
type follower struct {
	c      *Client
	planID string
	// last is the last Seq handed on.
	last  int64
	ended bool
	out   chan<- followed
}

// send hands it to the iterator, unless ctx ended first.
func (f *follower) send(ctx context.Context, it followed) bool {
	select {
	case f.out <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

// follow reads the plan's latest run, and each run it continues as, to
// the end of the chain.
func (f *follower) follow(ctx context.Context) error {
	desc, err := f.c.c.DescribeWorkflow(ctx, f.planID, "")
	if err != nil {
		return wrap(f.planID, fmt.Errorf("events: %w", err))
	}
	runID := desc.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	for runID != "" {
		next, err := f.readRun(ctx, runID)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return wrap(f.planID, fmt.Errorf("events of run %s: %w", runID, err))
		}
		runID = next
	}
	return nil
}

// readRun hands on the events of run runID after f.last, waiting for new
// ones until the run closes, and returns the run it continued as ("" when
// the plan ended). It reads the history a page at a time with the
// server's long poll, and asks again at most every FollowEvery: a page
// that comes back at once (the plan is busy) waits out the rest of that
// time first, so that a follower costs the server a bounded number of
// reads a second however busy the plan is, and several events come in
// one read.
func (f *follower) readRun(ctx context.Context, runID string) (string, error) {
	var token []byte
	var last time.Time
	for {
		if wait := time.Until(last.Add(FollowEvery)); wait > 0 && token != nil {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(wait):
			}
		}
		last = time.Now()
		resp, err := f.page(ctx, runID, token)
		if err != nil {
			return "", err
		}
		for _, he := range resp.GetHistory().GetEvents() {
			next, closed, err := f.event(ctx, he)
			if err != nil || closed {
				return next, err
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return "", nil
		}
	}
}

// FollowEvery is the least time between two reads of a plan's history by
// one follower (Client.Events).
const FollowEvery = 200 * time.Millisecond

// longPoll bounds one read of the history: the server answers a long poll
// within about 20 s, with new events or none.
const longPoll = 70 * time.Second

// page reads the next page of run runID's history after token, waiting
// for new events; a read the server did not answer in time is made again.
func (f *follower) page(ctx context.Context, runID string, token []byte) (*workflowservice.GetWorkflowExecutionHistoryResponse, error) {
	for {
		pctx, cancel := context.WithTimeout(ctx, longPoll)
		resp, err := f.c.c.WorkflowService().GetWorkflowExecutionHistory(pctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
			Namespace: f.c.namespace, Execution: &commonpb.WorkflowExecution{WorkflowId: f.planID, RunId: runID},
			NextPageToken: token, WaitNewEvent: true, HistoryEventFilterType: enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
		})
		cancel()
		var deadline *serviceerror.DeadlineExceeded
		if err != nil && ctx.Err() == nil && (errors.As(err, &deadline) || errors.Is(err, context.DeadlineExceeded)) {
			continue
		}
		return resp, err
	}
}

// event reads one history event: the run's carried events, the log's
// markers, and its end. It reports whether the run closed and, when it
// continued as new, as which run.
func (f *follower) event(ctx context.Context, he *historypb.HistoryEvent) (next string, closed bool, err error) {
	switch he.GetEventType() {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
		err = f.carried(ctx, he.GetWorkflowExecutionStartedEventAttributes().GetInput())
	case enumspb.EVENT_TYPE_MARKER_RECORDED:
		if !f.marker(ctx, he.GetMarkerRecordedEventAttributes()) {
			err = ctx.Err()
		}
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
		return he.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId(), true, nil
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
		enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
		f.closed(ctx, he)
		return "", true, nil
	}
	return "", err != nil, err
}

// carried hands on the recent events the run's checkpoint carried from
// the run before it (none in a first run) that come after f.last, with a
// gap first when the events right after f.last are no longer kept.
func (f *follower) carried(ctx context.Context, input *commonpb.Payloads) error {
	var req struct {
		Checkpoint *signals.EventLogState `json:"checkpoint"`
	}
	if err := f.c.converter().FromPayloads(input, &req); err != nil {
		return fmt.Errorf("read the run's input: %w", err)
	}
	if req.Checkpoint == nil || req.Checkpoint.EventSeq <= f.last {
		return nil
	}
	evs, whole := req.Checkpoint.After(f.last)
	if !whole {
		first := req.Checkpoint.EventSeq + 1
		if len(evs) > 0 {
			first = evs[0].Seq
		}
		if !f.gap(ctx, first) {
			return ctx.Err()
		}
	}
	for _, e := range evs {
		if !f.hand(ctx, e) {
			return ctx.Err()
		}
	}
	return nil
}

// marker hands on the events of one of the log's markers that come after
// f.last; other markers are not the log's. It reports false when ctx
// ended.
func (f *follower) marker(ctx context.Context, m *historypb.MarkerRecordedEventAttributes) bool {
	batch, ok := f.c.batchOf(m)
	if !ok {
		return true
	}
	for _, e := range batch.Stamped() {
		// An end before the follower's position was told too.
		f.ended = f.ended || e.Type == signals.EventEnded
		if e.Seq <= f.last {
			continue
		}
		if e.Seq > f.last+1 && !f.gap(ctx, e.Seq) {
			return false
		}
		if !f.hand(ctx, e) {
			return false
		}
	}
	return true
}

// batchOf reads the log's batch from m, one of a run's markers; ok is
// false for a marker that is not the log's.
func (c *Client) batchOf(m *historypb.MarkerRecordedEventAttributes) (signals.EventBatch, bool) {
	var batch signals.EventBatch
	data, ok := m.GetDetails()[sideEffectData]
	if m.GetMarkerName() != sideEffectMarker || !ok {
		return batch, false
	}
	if err := c.converter().FromPayloads(data, &batch); err != nil || batch.Log != signals.EventLogName {
		return batch, false
	}
	return batch, true
}

// The SDK's marker of workflow.SideEffect, in which a plan writes its
// events, and the detail that holds the value.
const (
	sideEffectMarker = "SideEffect"
	sideEffectData   = "data"
)

// hand hands e on as the plan's.
func (f *follower) hand(ctx context.Context, e signals.Event) bool {
	e.PlanID = f.planID
	f.last = e.Seq
	f.ended = f.ended || e.Type == signals.EventEnded
	return f.send(ctx, followed{ev: e})
}

// gap hands on an EventGap for the events after f.last and before first,
// which are no longer kept, with the plan's standing now.
func (f *follower) gap(ctx context.Context, first int64) bool {
	d := signals.EventGapData{After: f.last, FirstKept: first}
	if s, err := f.c.Standing(ctx, f.planID); err == nil {
		d.Standing, _ = json.Marshal(s)
	}
	data, _ := json.Marshal(d)
	e := signals.Event{Seq: first - 1, At: time.Now().UTC(), Type: signals.EventGap, PlanID: f.planID,
		Message: fmt.Sprintf("events %d to %d are no longer kept", f.last+1, first-1), Data: data}
	f.last = first - 1
	return f.send(ctx, followed{ev: e})
}

// closed hands on an ended event for a run that closed without its log
// telling it (terminated, timed out, or failed before it could), so a
// follower always learns the end.
func (f *follower) closed(ctx context.Context, he *historypb.HistoryEvent) {
	if f.ended {
		return
	}
	status := closeStatus(he.GetEventType())
	data, _ := json.Marshal(map[string]string{"status": status})
	e := signals.Event{Seq: f.last, At: he.GetEventTime().AsTime(), Type: signals.EventEnded, PlanID: f.planID,
		Message: "run " + status + " (closed by the server)", Data: data}
	f.ended = true
	f.send(ctx, followed{ev: e})
}

// closeStatus names the status a run's close event gives it, in
// Temporal's words.
func closeStatus(t enumspb.EventType) string {
	switch t {
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
		return "completed"
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
		return "failed"
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
		return "cancelled"
	case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
		return "terminated"
	}
	return "timed out"
}

// converter is the data converter payloads are read with.
func (c *Client) converter() converter.DataConverter {
	if c.dc == nil {
		return converter.GetDefaultDataConverter()
	}
	return c.dc
}
