package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"google.golang.org/grpc"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// jsonLines decodes every line of out as a watchEvent, failing on a line
// that is not one JSON object.
func jsonLines(t *testing.T, out *bytes.Buffer) []watchEvent {
	t.Helper()
	var events []watchEvent
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	for sc.Scan() {
		var e watchEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "line %q", sc.Text())
		events = append(events, e)
	}
	return events
}

// described makes the mocked client describe plan-1 with status st, or
// fail with err.
func described(tc *mocks.Client, st enumspb.WorkflowExecutionStatus, err error) {
	var resp *client.WorkflowExecutionDescription
	if err == nil {
		resp = &client.WorkflowExecutionDescription{RawResponse: &workflowservice.DescribeWorkflowExecutionResponse{
			WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: st},
		}}
	}
	tc.On("DescribeWorkflow", mock.Anything, "plan-1", "").Return(resp, err)
	tc.On("DescribeTaskQueue", mock.Anything, mock.Anything, enumspb.TASK_QUEUE_TYPE_WORKFLOW).
		Return(&workflowservice.DescribeTaskQueueResponse{}, nil).Maybe()
}

// runningPlan makes the mocked client describe plan-1 as a run past its
// first workflow task, so watch and show query it.
func runningPlan(tc *mocks.Client) {
	tc.On("DescribeWorkflow", mock.Anything, "plan-1", "").Return(&client.WorkflowExecutionDescription{
		RawResponse: &workflowservice.DescribeWorkflowExecutionResponse{
			WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, HistoryLength: 20},
		}}, nil)
	tc.On("WorkflowService").Return(unloggedHistory{}).Maybe()
}

// unloggedHistory is the history of a run whose event log carries no
// progress: its standing is asked by query.
type unloggedHistory struct {
	workflowservice.WorkflowServiceClient
}

func (unloggedHistory) GetWorkflowExecutionHistoryReverse(context.Context, *workflowservice.GetWorkflowExecutionHistoryReverseRequest,
	...grpc.CallOption) (*workflowservice.GetWorkflowExecutionHistoryReverseResponse, error) {
	return &workflowservice.GetWorkflowExecutionHistoryReverseResponse{}, nil
}

func TestWatchJSONWritesOneObjectPerLine(t *testing.T) {
	queryFailed := errors.New("no worker answered")
	cases := []struct {
		name     string
		setup    func(*testing.T, *mocks.Client)
		want     []string // events in order
		wantCode int
	}{
		{name: "plan that completes while watched", setup: func(t *testing.T, tc *mocks.Client) {
			runningPlan(tc)
			answer(t, tc, signals.ProgressQuery.Name, signals.Progress{Phase: plan.PhaseExecuting, Percent: 50})
			answer(t, tc, signals.ProgressQuery.Name, signals.Progress{Phase: plan.PhaseCompleted, Percent: 100})
		}, want: []string{eventProgress, eventProgress}},
		{name: "plan that waits for a selection", setup: func(t *testing.T, tc *mocks.Client) {
			runningPlan(tc)
			answer(t, tc, signals.ProgressQuery.Name, signals.Progress{Phase: plan.PhaseAwaitingSelection,
				Awaiting: signals.AwaitingSelection})
			answer(t, tc, signals.PendingQuery.Name, signals.Pending{Awaiting: signals.AwaitingSelection})
		}, want: []string{eventProgress, eventWaiting}},
		{name: "cancelled plan no worker can answer for", setup: func(t *testing.T, tc *mocks.Client) {
			tc.On("QueryWorkflow", mock.Anything, "plan-1", "", signals.ProgressQuery.Name).Return(nil, queryFailed).Once()
			described(tc, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, nil)
		}, want: []string{eventEnded}},
		{name: "unknown plan", setup: func(t *testing.T, tc *mocks.Client) {
			described(tc, 0, serviceerror.NewNotFound("workflow not found"))
		}, wantCode: exitNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, out, errOut := newTestDeps(t, "")
			temporal := mocks.NewClient(t)
			temporal.On("Close").Return().Once()
			tc.setup(t, temporal)
			d.client = temporal

			code := run(context.Background(), d, []string{"watch", "plan-1", "--output", "json"})
			require.Equal(t, tc.wantCode, code, errOut.String())
			var got []string
			for _, e := range jsonLines(t, out) {
				got = append(got, e.Event)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestWatchJSONEndedCarriesTheStatus(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	temporal := mocks.NewClient(t)
	temporal.On("Close").Return().Once()
	temporal.On("QueryWorkflow", mock.Anything, "plan-1", "", signals.ProgressQuery.Name).
		Return(nil, errors.New("no worker answered")).Once()
	described(temporal, enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, nil)
	d.client = temporal

	require.Equal(t, exitOK, run(context.Background(), d, []string{"watch", "plan-1", "-o", "json"}), errOut.String())
	assert.Equal(t, []watchEvent{{Event: eventEnded, Status: "Canceled"}}, jsonLines(t, out))
}

func TestWatchJSONEndedReadsTheResultOfACompletedRun(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	temporal := mocks.NewClient(t)
	temporal.On("Close").Return().Once()
	temporal.On("QueryWorkflow", mock.Anything, "plan-1", "", signals.ProgressQuery.Name).
		Return(nil, errors.New("no worker answered")).Once()
	described(temporal, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, nil)
	wfRun := mocks.NewWorkflowRun(t)
	wfRun.On("Get", mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		*args.Get(1).(*signals.Result) = signals.Result{Status: signals.StatusCancelled}
	}).Return(nil).Once()
	temporal.On("GetWorkflow", mock.Anything, "plan-1", "").Return(wfRun).Once()
	d.client = temporal

	require.Equal(t, exitOK, run(context.Background(), d, []string{"watch", "plan-1", "-o", "json"}), errOut.String())
	assert.Equal(t, []watchEvent{{Event: eventEnded, Status: "cancelled"}}, jsonLines(t, out),
		"a cancelled plan completes its run; the Result says it was cancelled")
}
