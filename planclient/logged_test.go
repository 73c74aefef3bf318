package planclient

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"google.golang.org/grpc"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// reverseService serves one run's history newest first, in pages of the
// size asked.
type reverseService struct {
	workflowservice.WorkflowServiceClient
	newestFirst []*historypb.HistoryEvent
	asked       []*workflowservice.GetWorkflowExecutionHistoryReverseRequest
}

func (s *reverseService) GetWorkflowExecutionHistoryReverse(_ context.Context, req *workflowservice.GetWorkflowExecutionHistoryReverseRequest,
	_ ...grpc.CallOption) (*workflowservice.GetWorkflowExecutionHistoryReverseResponse, error) {
	s.asked = append(s.asked, req)
	from := 0
	if len(req.GetNextPageToken()) > 0 {
		from, _ = strconv.Atoi(string(req.GetNextPageToken()))
	}
	to := min(from+int(req.GetMaximumPageSize()), len(s.newestFirst))
	resp := &workflowservice.GetWorkflowExecutionHistoryReverseResponse{History: &historypb.History{Events: s.newestFirst[from:to]}}
	if to < len(s.newestFirst) {
		resp.NextPageToken = []byte(strconv.Itoa(to))
	}
	return resp, nil
}

// batch is a marker of the log written at at with evs and p.
func batch(t *testing.T, at time.Time, p *signals.Progress, evs ...signals.Event) *historypb.HistoryEvent {
	b := signals.EventBatch{Log: signals.EventLogName, At: at, Events: evs}
	if p != nil {
		lp := signals.LoggedProgress(*p)
		b.Progress = &lp
	}
	return marker(t, "SideEffect", b)
}

// usage is a usage event of u.
func usage(t *testing.T, u plan.Usage) signals.Event {
	d, err := json.Marshal(map[string]any{"phase": "execute", "promptTokens": u.PromptTokens, "completionTokens": u.CompletionTokens,
		"totalTokens": u.TotalTokens, "costUSD": u.CostUSD, "calls": u.Calls})
	require.NoError(t, err)
	return signals.Event{Type: signals.EventUsage, Message: "execute", Data: d}
}

// runningClient is a mock client whose plan p runs as run r1, its
// history svc.
func runningClient(t *testing.T, svc *reverseService) *mocks.Client {
	tc := mocks.NewClient(t)
	resp := described(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, 40, false, nil)
	resp.WorkflowExecutionInfo.Execution = &commonpb.WorkflowExecution{WorkflowId: "p", RunId: "r1"}
	tc.On("DescribeWorkflow", mock.Anything, "p", "").Return(&client.WorkflowExecutionDescription{RawResponse: resp}, nil)
	tc.On("WorkflowService").Return(svc).Maybe()
	return tc
}

// TestProgressOfARunningPlanIsReadFromItsLog: a running plan's progress
// and standing come from the newest batch of its log that carries it,
// its usage since added, read newest first from the run's history and
// across pages: no query is sent (the mock refuses one), so no workflow
// task is needed.
func TestProgressOfARunningPlanIsReadFromItsLog(t *testing.T) {
	at := time.Now().Add(-time.Minute)
	snap := &signals.Progress{Phase: plan.PhaseExecuting, Awaiting: signals.AwaitingNone, Percent: 40,
		Totals: plan.Totals{Total: 5, Completed: 2, Running: 1, Pending: 2}, StartedAt: at.Add(-time.Minute),
		Elapsed: plan.Duration(time.Minute), Usage: plan.Usage{TotalTokens: 100, Calls: 1}, Tokens: 100}
	newest := make([]*historypb.HistoryEvent, 0, loggedPageSize+2)
	newest = append(newest, batch(t, at.Add(time.Second), nil, usage(t, plan.Usage{TotalTokens: 30, CostUSD: 0.5, Calls: 2})))
	for range loggedPageSize {
		newest = append(newest, &historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED})
	}
	newest = append(newest, batch(t, at, snap), batch(t, at.Add(-time.Second), &signals.Progress{Phase: plan.PhasePlanning}))
	svc := &reverseService{newestFirst: newest}
	c := New(runningClient(t, svc))

	p, err := c.Progress(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, plan.PhaseExecuting, p.Phase, "the newest progress, on the second page")
	assert.Equal(t, 40, p.Percent)
	assert.Equal(t, plan.Usage{TotalTokens: 130, CostUSD: 0.5, Calls: 3}, p.Usage, "the usage written since is added")
	assert.Equal(t, 130, p.Tokens)
	assert.GreaterOrEqual(t, p.Elapsed.D(), 2*time.Minute, "the time since the batch counts")
	require.Len(t, svc.asked, 2)
	assert.Equal(t, "r1", svc.asked[0].GetExecution().GetRunId(), "the latest run's history")

	s, err := c.Standing(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, SourceLog, s.Source)
	require.NotNil(t, s.Progress)
	assert.Equal(t, 40, s.Progress.Percent)
	assert.Equal(t, "executing, 40%", s.Summary())
}

// TestProgressOfARunWithoutALogAsksTheQuery: a run whose log carries no
// progress (a build that did not write it) answers by its query.
func TestProgressOfARunWithoutALogAsksTheQuery(t *testing.T) {
	svc := &reverseService{newestFirst: []*historypb.HistoryEvent{batch(t, time.Now(), nil, usage(t, plan.Usage{TotalTokens: 1}))}}
	tc := runningClient(t, svc)
	v := mocks.NewEncodedValue(t)
	v.On("Get", mock.Anything).Return(nil).Once()
	tc.On("QueryWorkflow", mock.Anything, "p", "", "progress").Return(v, nil).Once()
	_, err := New(tc).Progress(context.Background(), "p")
	require.NoError(t, err)
}

// TestProgressOfAQueuedRunNeedsNoQuery: a run no worker has picked up yet
// stands at its start, answered from its description alone (the mock
// refuses a query and a history read).
func TestProgressOfAQueuedRunNeedsNoQuery(t *testing.T) {
	tc := mocks.NewClient(t)
	resp := described(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, 2, true, nil)
	tc.On("DescribeWorkflow", mock.Anything, "p", "").Return(&client.WorkflowExecutionDescription{RawResponse: resp}, nil)
	p, err := New(tc).Progress(context.Background(), "p")
	require.NoError(t, err)
	assert.Empty(t, p.Phase, "no phase before its first task")
	assert.True(t, p.StartedAt.Equal(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)))
	assert.Positive(t, p.Elapsed)
}
