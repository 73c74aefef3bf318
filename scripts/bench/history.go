package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/proto"
)

// chainStats is the history of a workflow id summed over every run of its
// continue-as-new chain.
type chainStats struct {
	runs, events, bytes int
	// kinds sums bytes by event kind: the event type, and for activity
	// events the activity type ("ActivityTaskScheduled ExecuteLLMStep").
	kinds map[string]int
}

// visibilityWait bounds how long the runs of a chain may take to all show
// in visibility.
const visibilityWait = 30 * time.Second

// measureChain follows the chain of id from its first run through each
// continue-as-new to the last, summing proto.Size of every event, and
// checks that visibility (WorkflowId = id) lists as many runs.
func measureChain(ctx context.Context, c client.Client, ns, id, firstRunID string) (chainStats, error) {
	st := chainStats{kinds: map[string]int{}}
	for runID := firstRunID; runID != ""; {
		next, err := addRun(ctx, c, id, runID, &st)
		if err != nil {
			return st, err
		}
		st.runs++
		runID = next
	}
	listed, err := waitListedRuns(ctx, c, ns, id, st.runs)
	if err != nil {
		return st, err
	}
	if listed != st.runs {
		return st, fmt.Errorf("%s: visibility lists %d runs, the chain has %d", id, listed, st.runs)
	}
	return st, nil
}

// addRun adds one run's events to st and returns the run it continued as,
// "" when it is the last.
func addRun(ctx context.Context, c client.Client, id, runID string, st *chainStats) (string, error) {
	activityType := map[int64]string{}
	next := ""
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return "", fmt.Errorf("history of %s/%s: %w", id, runID, err)
		}
		size := proto.Size(ev)
		st.events++
		st.bytes += size
		st.kinds[eventKind(ev, activityType)] += size
		if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
			next = a.GetNewExecutionRunId()
		}
	}
	return next, nil
}

// eventKind names ev's kind, with the activity type for activity events
// (activityType maps scheduled event ids to types as they are seen).
func eventKind(ev *historypb.HistoryEvent, activityType map[int64]string) string {
	kind := ev.GetEventType().String()
	var scheduled int64
	switch {
	case ev.GetActivityTaskScheduledEventAttributes() != nil:
		activityType[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		scheduled = ev.GetEventId()
	case ev.GetActivityTaskStartedEventAttributes() != nil:
		scheduled = ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId()
	case ev.GetActivityTaskCompletedEventAttributes() != nil:
		scheduled = ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()
	case ev.GetActivityTaskFailedEventAttributes() != nil:
		scheduled = ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId()
	}
	if t, ok := activityType[scheduled]; ok && scheduled != 0 {
		return kind + " " + t
	}
	return kind
}

// waitListedRuns counts the runs visibility lists for id, waiting until
// it lists want of them or visibilityWait passes.
func waitListedRuns(ctx context.Context, c client.Client, ns, id string, want int) (int, error) {
	deadline := time.Now().Add(visibilityWait)
	for {
		n, err := listRuns(ctx, c, ns, id)
		if err != nil || n >= want || time.Now().After(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// listRuns counts the runs of id in visibility, page by page.
func listRuns(ctx context.Context, c client.Client, ns, id string) (int, error) {
	n := 0
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: ns,
			Query: fmt.Sprintf("WorkflowId = '%s'", id), NextPageToken: token})
		if err != nil {
			return n, fmt.Errorf("list runs of %s: %w", id, err)
		}
		n += len(resp.GetExecutions())
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return n, nil
		}
	}
}

// topKinds returns the k kinds with the most bytes, as "kind N%" of the
// total, biggest first.
func (st chainStats) topKinds(k int) string {
	type kv struct {
		kind  string
		bytes int
	}
	var all []kv
	for kind, b := range st.kinds {
		all = append(all, kv{kind, b})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].bytes != all[j].bytes {
			return all[i].bytes > all[j].bytes
		}
		return all[i].kind < all[j].kind
	})
	var parts []string
	for i := 0; i < len(all) && i < k; i++ {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", all[i].kind, 100*float64(all[i].bytes)/float64(st.bytes)))
	}
	return strings.Join(parts, ", ")
}
