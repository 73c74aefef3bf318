package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/planmode/planmode/signals"
)

// selectCall is one select-option update as an operator sent it.
type selectCall struct {
	planID string
	sent   time.Time
	took   time.Duration
}

// selectTrace splits one select-option update's time at the events of the
// workflow task that accepted it: from the call to the task's scheduling
// (the server admitting the update, and waiting for a task already
// running on the plan), scheduled to started (the task waiting in the
// queue for a poller), started to completed (the worker's turn), and
// completed to the caller having its answer.
type selectTrace struct {
	admit, queue, work, answer time.Duration
}

// traceSlowest traces the n slowest of calls from their plans'
// histories; a plan whose history has no accepted select-option is left
// out.
func traceSlowest(ctx context.Context, r *rig, calls []selectCall, n int) []selectTrace {
	calls = slices.Clone(calls)
	slices.SortFunc(calls, func(a, b selectCall) int { return int(b.took - a.took) })
	var out []selectTrace
	for _, c := range calls[:min(n, len(calls))] {
		t, ok := traceSelect(ctx, r, c)
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// traceSelect finds the workflow task that accepted c's update in its
// plan's history.
func traceSelect(ctx context.Context, r *rig, c selectCall) (selectTrace, bool) {
	it := r.srv.Client.GetWorkflowHistory(ctx, c.planID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var scheduled, started, completed time.Time
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return selectTrace{}, false
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
			scheduled = e.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			started = e.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			completed = e.GetEventTime().AsTime()
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			if acceptedName(e) != signals.SelectOption.Name {
				continue
			}
			end := c.sent.Add(c.took)
			return selectTrace{admit: scheduled.Sub(c.sent), queue: started.Sub(scheduled),
				work: completed.Sub(started), answer: end.Sub(completed)}, true
		}
	}
	return selectTrace{}, false
}

// acceptedName is the update name of an UpdateAccepted event.
func acceptedName(e *historypb.HistoryEvent) string {
	return e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput().GetName()
}

// traceSummary is the traces' median of each part, and their largest.
func traceSummary(ts []selectTrace) string {
	if len(ts) == 0 {
		return "no trace"
	}
	part := func(f func(selectTrace) time.Duration) string {
		ds := make([]time.Duration, len(ts))
		for i, t := range ts {
			ds[i] = f(t)
		}
		return fmt.Sprintf("%v/%v", percentile(ds, 50).Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond))
	}
	return fmt.Sprintf("%d slowest (median/max): admit %s, queue %s, worker %s, answer %s", len(ts),
		part(func(t selectTrace) time.Duration { return t.admit }), part(func(t selectTrace) time.Duration { return t.queue }),
		part(func(t selectTrace) time.Duration { return t.work }), part(func(t selectTrace) time.Duration { return t.answer }))
}
