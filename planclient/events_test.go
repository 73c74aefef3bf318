package planclient

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/grpc"

	"github.com/planmode/planmode/signals"
)

// chainClient serves a plan's chain of runs, each a fixed history, as the
// server does; the latest run is the last. What it does not fake panics.
type chainClient struct {
	client.Client
	runs  []string
	hist  map[string][]*historypb.HistoryEvent
	reads []string
}

func (c *chainClient) DescribeWorkflow(_ context.Context, id, _ string) (*client.WorkflowExecutionDescription, error) {
	if id != "plan-1" {
		return nil, errors.New("workflow not found for ID: " + id)
	}
	return &client.WorkflowExecutionDescription{RawResponse: &workflowservice.DescribeWorkflowExecutionResponse{
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: c.runs[len(c.runs)-1]}}}}, nil
}

// QueryWorkflow and DescribeTaskQueue fail: a gap's standing comes from
// what the description says.
func (c *chainClient) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, errors.New("no worker here")
}

func (c *chainClient) DescribeTaskQueue(context.Context, string, enumspb.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	return nil, errors.New("no worker here")
}

func (c *chainClient) WorkflowService() workflowservice.WorkflowServiceClient {
	return &historyService{c: c}
}

// historyService serves each run's history in two pages, the second
// after the first's token, and no token after the last (the run closed).
type historyService struct {
	workflowservice.WorkflowServiceClient
	c *chainClient
}

func (s *historyService) GetWorkflowExecutionHistory(_ context.Context, req *workflowservice.GetWorkflowExecutionHistoryRequest,
	_ ...grpc.CallOption) (*workflowservice.GetWorkflowExecutionHistoryResponse, error) {
	run := req.GetExecution().GetRunId()
	if req.GetNamespace() != "default" || !req.GetWaitNewEvent() {
		return nil, errors.New("want a long poll in the default namespace")
	}
	evs := s.c.hist[run]
	half := len(evs) / 2
	resp := &workflowservice.GetWorkflowExecutionHistoryResponse{History: &historypb.History{}}
	if len(req.GetNextPageToken()) == 0 {
		s.c.reads = append(s.c.reads, run)
		resp.History.Events, resp.NextPageToken = evs[:half], []byte("second")
		return resp, nil
	}
	resp.History.Events = evs[half:]
	return resp, nil
}

func payloads(t *testing.T, v any) *commonpb.Payloads {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayloads(v)
	require.NoError(t, err)
	return p
}

func started(t *testing.T, cp *signals.Checkpoint) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
				Input: payloads(t, signals.StartRequest{Goal: "g", Checkpoint: cp})}}}
}

func marker(t *testing.T, name string, v any) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_MARKER_RECORDED,
		Attributes: &historypb.HistoryEvent_MarkerRecordedEventAttributes{
			MarkerRecordedEventAttributes: &historypb.MarkerRecordedEventAttributes{MarkerName: name,
				Details: map[string]*commonpb.Payloads{"data": payloads(t, v)}}}}
}

func logged(t *testing.T, seqs ...int64) *historypb.HistoryEvent {
	var b signals.EventBatch
	b.Log = signals.EventLogName
	for _, s := range seqs {
		b.Events = append(b.Events, ev(s))
	}
	return marker(t, "SideEffect", b)
}

func ev(seq int64) signals.Event {
	return signals.Event{Seq: seq, At: time.Unix(seq, 0).UTC(), Type: signals.EventUsage, Message: "m"}
}

func continuedAs(runID string) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{
			WorkflowExecutionContinuedAsNewEventAttributes: &historypb.WorkflowExecutionContinuedAsNewEventAttributes{
				NewExecutionRunId: runID}}}
}

func closedAs(t enumspb.EventType) *historypb.HistoryEvent {
	return &historypb.HistoryEvent{EventType: t}
}

// seqs follows plan-1 after after and returns the seq and type of each
// event, and the error that ended the follow.
func seqs(c client.Client, after int64) ([]string, error) {
	var out []string
	for e, err := range New(c).Events(context.Background(), "plan-1", after) {
		if err != nil {
			return out, err
		}
		out = append(out, string(e.Type)+strconv.FormatInt(e.Seq, 10))
	}
	return out, nil
}

func TestEventsFollowTheChainFromWhatTheLatestRunKeeps(t *testing.T) {
	end := signals.Event{Seq: 6, Type: signals.EventEnded, Data: []byte(`{"status":"completed"}`)}
	endBatch := signals.EventBatch{Log: signals.EventLogName, Events: []signals.Event{ev(5), end}}
	c := &chainClient{runs: []string{"run-b"}, hist: map[string][]*historypb.HistoryEvent{
		// The latest run, continued from one that logged 1 to 3 and
		// carried 2 and 3; it continues as run-c.
		"run-b": {
			started(t, &signals.Checkpoint{EventLogState: signals.EventLogState{EventSeq: 3, RecentEvents: []signals.Event{ev(2), ev(3)}}}),
			marker(t, "SideEffect", "a uuid, not the log's"),
			marker(t, "Version", signals.EventBatch{Log: signals.EventLogName, Events: []signals.Event{ev(99)}}),
			logged(t, 4),
			continuedAs("run-c"),
		},
		"run-c": {
			started(t, &signals.Checkpoint{EventLogState: signals.EventLogState{EventSeq: 4, RecentEvents: []signals.Event{ev(3), ev(4)}}}),
			marker(t, "SideEffect", endBatch),
			closedAs(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
		},
	}}

	got, err := seqs(c, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"gap1", "usage2", "usage3", "usage4", "usage5", "ended6"}, got,
		"event 1 is no longer kept: one gap, then the rest in order, once each")
	assert.Equal(t, []string{"run-b", "run-c"}, c.reads)

	c.reads = nil
	got, err = seqs(c, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"usage2", "usage3", "usage4", "usage5", "ended6"}, got, "the carried events reach back to 2")

	got, err = seqs(c, 4)
	require.NoError(t, err)
	assert.Equal(t, []string{"usage5", "ended6"}, got, "from K, K+1 first")

	got, err = seqs(c, 6)
	require.NoError(t, err)
	assert.Empty(t, got, "after the end: nothing, and the follow ends")
}

func TestEventsTellTheEndOfARunClosedFromOutside(t *testing.T) {
	c := &chainClient{runs: []string{"run-a"}, hist: map[string][]*historypb.HistoryEvent{
		"run-a": {started(t, nil), logged(t, 1, 2), closedAs(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED)},
	}}
	var evs []signals.Event
	for e, err := range New(c).Events(context.Background(), "plan-1", 0) {
		require.NoError(t, err)
		evs = append(evs, e)
	}
	require.Len(t, evs, 3)
	end := evs[2]
	assert.Equal(t, signals.EventEnded, end.Type)
	assert.Equal(t, int64(2), end.Seq, "not a log event: the seq of the last one")
	assert.JSONEq(t, `{"status":"terminated"}`, string(end.Data))
	assert.Equal(t, "plan-1", end.PlanID)
}

func TestEventsRefuseABadStartAndAnUnknownPlan(t *testing.T) {
	c := &chainClient{runs: []string{"run-a"}, hist: map[string][]*historypb.HistoryEvent{}}
	_, err := seqs(c, -1)
	assert.ErrorContains(t, err, "plan plan-1: events after -1: want 0 or more")
	n := 0
	for _, err := range New(c).Events(context.Background(), "no-such-plan", 0) {
		n++
		assert.ErrorContains(t, err, "plan no-such-plan: events: workflow not found")
	}
	assert.Equal(t, 1, n, "one error ends the follow")
}

func TestEventsStopWhenTheCallerStops(t *testing.T) {
	c := &chainClient{runs: []string{"run-a"}, hist: map[string][]*historypb.HistoryEvent{
		"run-a": {started(t, nil), logged(t, 1, 2, 3), closedAs(enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)},
	}}
	n := 0
	for range New(c).Events(context.Background(), "plan-1", 0) {
		n++
		break
	}
	assert.Equal(t, 1, n)
}
