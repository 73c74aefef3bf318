package planclient

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/signals"
)

// The text of a model call while it runs. A worker that streams its model
// calls (llm.stream) heartbeats each call's text as it is written: the
// activity's heartbeat details are a [signals.ModelText], which the server
// keeps with the pending activity and never writes to history.
// [Client.RunningText] reads them; [TextDeltas] turns two successive looks
// into the new text, as [signals.EventModelText] events carry it.

// WithDataConverter sets the data converter heartbeat details are decoded
// with ([Client.RunningText]): pass the one the Temporal client was dialled
// with (client.Options.DataConverter), so that a worker's encrypted
// payloads decode. nil, the default, is converter.GetDefaultDataConverter().
func WithDataConverter(dc converter.DataConverter) Option {
	return func(c *Client) { c.dc = dc }
}

// RunningCall is a model call running in a plan: its activity, the
// activity's attempt and the text so far as its last heartbeat told it.
type RunningCall struct {
	ActivityID   string
	ActivityType string
	Attempt      int32
	Text         signals.ModelText
}

// RunningText returns the model calls running in the latest run of plan
// planID whose activity heartbeats their text, in the order the server
// lists the pending activities. A pending activity is left out when it
// is not running (waiting for its next attempt, paused), when its last
// heartbeat is older than its attempt (the details an earlier attempt
// left, which the server keeps across retries), or when its details are
// not a signals.ModelText (a call that does not stream, a tool). It
// returns an error, wrapped as every call on a plan, when the plan cannot
// be described.
func (c *Client) RunningText(ctx context.Context, planID string) ([]RunningCall, error) {
	desc, err := c.c.DescribeWorkflow(ctx, planID, "")
	if err != nil {
		return nil, wrap(planID, fmt.Errorf("describe: %w", err))
	}
	var calls []RunningCall
	for _, pa := range desc.RawResponse.GetPendingActivities() {
		text, ok := modelText(c.converter(), pa)
		if !ok {
			continue
		}
		calls = append(calls, RunningCall{ActivityID: pa.GetActivityId(), ActivityType: pa.GetActivityType().GetName(),
			Attempt: pa.GetAttempt(), Text: text})
	}
	return calls, nil
}

// modelText decodes the text pa's running attempt heartbeated; ok is
// false when pa is not running, its details are not this attempt's or
// not a signals.ModelText.
func modelText(dc converter.DataConverter, pa *workflowpb.PendingActivityInfo) (signals.ModelText, bool) {
	switch pa.GetState() {
	case enumspb.PENDING_ACTIVITY_STATE_STARTED, enumspb.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED,
		enumspb.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED:
	default:
		return signals.ModelText{}, false
	}
	beat, started := pa.GetLastHeartbeatTime(), pa.GetLastStartedTime()
	if pa.GetHeartbeatDetails() == nil || beat == nil || (started != nil && beat.AsTime().Before(started.AsTime())) {
		return signals.ModelText{}, false
	}
	var text signals.ModelText
	if err := dc.FromPayloads(pa.GetHeartbeatDetails(), &text); err != nil || text.Phase == "" {
		return signals.ModelText{}, false
	}
	return text, true
}

// TextSeen is what a follower saw of one running call: its attempt and
// how many bytes of its text.
type TextSeen struct {
	Attempt int32
	Bytes   int64
}

// TextDeltas returns what is new in calls, a look at the running calls
// (Client.RunningText), since prev, what the last look saw (nil for
// none), and what this look saw, to hand to the next. Per call, in the
// order of calls:
//   - a call first seen, or seen in a new attempt, gives its text from the
//     start, Restarted when the attempt is not the first or an earlier
//     one was seen (the text starts over);
//   - a call seen in the same attempt gives what its text grew by;
//   - text that arrived but is no longer in the heartbeat's tail
//     (signals.MaxModelTextBytes) is counted in Skipped, the delta holding
//     what the tail has.
//
// A call with nothing new gives no delta. A call whose text shrank within
// an attempt starts over, Restarted. Calls that are no longer running are
// left out of next.
func TextDeltas(prev map[string]TextSeen, calls []RunningCall) (deltas []signals.ModelTextDelta, next map[string]TextSeen) {
	next = make(map[string]TextSeen, len(calls))
	for _, c := range calls {
		text := c.Text
		seen, saw := prev[c.ActivityID]
		next[c.ActivityID] = TextSeen{Attempt: c.Attempt, Bytes: text.Bytes}
		d := signals.ModelTextDelta{Phase: text.Phase, StepID: text.StepID, ActivityID: c.ActivityID, Attempt: c.Attempt}
		if saw && seen.Attempt == c.Attempt && text.Bytes >= seen.Bytes {
			d.Text, d.Skipped = lastBytes(text.Text, text.Bytes-seen.Bytes)
		} else {
			d.Restarted = c.Attempt > 1 || saw
			d.Text, d.Skipped = lastBytes(text.Text, text.Bytes)
		}
		if d.Text != "" || d.Skipped > 0 || d.Restarted {
			deltas = append(deltas, d)
		}
	}
	return deltas, next
}

// lastBytes returns the last n bytes of a text whose tail is tail, and
// how many of those bytes tail no longer holds.
func lastBytes(tail string, n int64) (string, int64) {
	if n <= int64(len(tail)) {
		return tail[len(tail)-int(max(n, 0)):], 0
	}
	return tail, n - int64(len(tail))
}
