package planclient

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestNewClientTaskQueue(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"default", nil, signals.DefaultTaskQueue},
		{"set", []Option{WithTaskQueue("plans-eu")}, "plans-eu"},
		{"empty keeps the default", []Option{WithTaskQueue("")}, signals.DefaultTaskQueue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := mocks.NewClient(t)
			c := New(tc, tt.opts...)
			assert.Equal(t, tt.want, c.TaskQueue())
			assert.Same(t, tc, c.Temporal())
		})
	}
}

func TestStartSetsRunMetadata(t *testing.T) {
	tc := mocks.NewClient(t)
	run := mocks.NewWorkflowRun(t)
	req := signals.StartRequest{Goal: "Add JWT authentication\nwith refresh tokens", Requirements: []string{"email login"}}
	var got client.StartWorkflowOptions
	tc.On("ExecuteWorkflow", mock.Anything, mock.Anything, signals.WorkflowType, req).
		Run(func(args mock.Arguments) { got = args.Get(1).(client.StartWorkflowOptions) }).
		Return(run, nil).Once()

	r, err := New(tc, WithTaskQueue("q1")).Start(context.Background(), "plan-1", req)
	require.NoError(t, err)
	assert.Same(t, run, r)
	assert.Equal(t, "plan-1", got.ID)
	assert.Equal(t, "q1", got.TaskQueue)
	assert.Equal(t, "Add JWT authentication …", got.StaticSummary)
	assert.Equal(t, StaticDetails(req), got.StaticDetails)
	assert.Contains(t, got.StaticDetails, "- email login")
	assert.Equal(t, map[string]any{signals.MemoGoal: req.Goal}, got.Memo)
	assert.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED, got.WorkflowIDConflictPolicy)
	assert.True(t, got.WorkflowExecutionErrorWhenAlreadyStarted, "a plain start fails on an open run")
}

func TestStartMakesAnIDWhenNoneIsGiven(t *testing.T) {
	tc := mocks.NewClient(t)
	var got client.StartWorkflowOptions
	tc.On("ExecuteWorkflow", mock.Anything, mock.Anything, signals.WorkflowType, mock.Anything).
		Run(func(args mock.Arguments) { got = args.Get(1).(client.StartWorkflowOptions) }).
		Return(mocks.NewWorkflowRun(t), nil).Twice()
	c := New(tc)
	_, err := c.Start(context.Background(), "", signals.StartRequest{Goal: "g"})
	require.NoError(t, err)
	first := got.ID
	_, err = c.Start(context.Background(), "", signals.StartRequest{Goal: "g"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(first, "plan-"), first)
	assert.NotEqual(t, first, got.ID)
}

func TestStartRefusesBadInputWithoutCallingTemporal(t *testing.T) {
	tc := mocks.NewClient(t) // any call fails the test
	c := New(tc)
	_, err := c.Start(context.Background(), "plan-1", signals.StartRequest{})
	assert.ErrorContains(t, err, "goal is required")
	_, err = c.StartAndGetOptions(context.Background(), "plan-1", signals.StartRequest{Goal: "g", OptionCount: 9})
	assert.ErrorContains(t, err, "optionCount must be 1..5")
	_, err = c.StartAndGetOptions(context.Background(), "", signals.StartRequest{Goal: "g"})
	assert.ErrorContains(t, err, "workflow id is required")
}

func TestStartRefusesATooLargeRequestWithoutCallingTemporal(t *testing.T) {
	c := New(mocks.NewClient(t)) // any call fails the test
	huge := signals.StartRequest{Goal: strings.Repeat("g", 1<<20)}
	_, err := c.Start(context.Background(), "plan-1", huge)
	assert.ErrorContains(t, err, "goal is 1048576 bytes: at most 32768")
	many := signals.StartRequest{Goal: "g", Requirements: make([]string, signals.MaxListItems)}
	for i := range many.Requirements {
		many.Requirements[i] = strings.Repeat("r", signals.MaxTextBytes)
	}
	many.Constraints = many.Requirements
	_, err = c.StartAndGetOptions(context.Background(), "plan-1", many)
	assert.ErrorContains(t, err, "at most 262144 (256 KiB)")
	_, err = c.Start(context.Background(), "plan-1", signals.StartRequest{Goal: "g", Execution: signals.ExecutionPolicy{Parallelism: 1000000}})
	assert.ErrorContains(t, err, "execution.parallelism 1000000 must be within 0..32")
}

func TestStartAndGetOptionsUsesUpdateWithStart(t *testing.T) {
	tc := mocks.NewClient(t)
	req := signals.StartRequest{Goal: "g"}
	op := &fakeStartOp{}
	var start client.StartWorkflowOptions
	tc.On("NewWithStartWorkflowOperation", mock.Anything, signals.WorkflowType, req).
		Run(func(args mock.Arguments) { start = args.Get(0).(client.StartWorkflowOptions) }).
		Return(op).Once()
	want := signals.OptionsView{Revision: 1, Options: []plan.Option{{ID: "r1-o1"}}, RecommendedID: "r1-o1"}
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).
		Run(func(args mock.Arguments) { *args.Get(1).(*signals.OptionsView) = want }).
		Return(nil).Once()
	var uws client.UpdateWithStartWorkflowOptions
	tc.On("UpdateWithStartWorkflow", mock.Anything, mock.Anything).
		Run(func(args mock.Arguments) { uws = args.Get(1).(client.UpdateWithStartWorkflowOptions) }).
		Return(h, nil).Once()

	got, err := New(tc).StartAndGetOptions(context.Background(), "plan-7", req)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, "plan-7", start.ID)
	assert.Equal(t, signals.DefaultTaskQueue, start.TaskQueue)
	assert.Equal(t, "g", start.StaticSummary)
	assert.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, start.WorkflowIDConflictPolicy)
	assert.Same(t, op, uws.StartWorkflowOperation)
	assert.Equal(t, "await-options", uws.UpdateOptions.UpdateName)
	assert.Equal(t, []any{signals.AwaitOptionsRequest{}}, uws.UpdateOptions.Args)
	assert.Equal(t, client.WorkflowUpdateStageCompleted, uws.UpdateOptions.WaitForStage)
}

func TestStartAndGetOptionsReportsTheRefusal(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("NewWithStartWorkflowOperation", mock.Anything, signals.WorkflowType, mock.Anything).Return(&fakeStartOp{}).Once()
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(errors.New("rejected: the run passed selection")).Once()
	tc.On("UpdateWithStartWorkflow", mock.Anything, mock.Anything).Return(h, nil).Once()

	_, err := New(tc).StartAndGetOptions(context.Background(), "plan-7", signals.StartRequest{Goal: "g"})
	assert.ErrorContains(t, err, "plan plan-7: await-options: rejected: the run passed selection")
}

// fakeStartOp stands for the SDK's start operation, which only the SDK can
// build.
type fakeStartOp struct{}

func (*fakeStartOp) Get(context.Context) (client.WorkflowRun, error) { return nil, nil }

func TestUpdatesUseContractNames(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(*Client) error
		arg  any
	}{
		{"select-option", func(c *Client) error {
			_, err := c.Select(ctx, "p", signals.SelectOptionRequest{Rank: 1})
			return err
		}, signals.SelectOptionRequest{Rank: 1}},
		{"refine-plan", func(c *Client) error {
			_, err := c.Refine(ctx, "p", signals.RefinePlanRequest{Feedback: "cheaper"})
			return err
		}, signals.RefinePlanRequest{Feedback: "cheaper"}},
		{"answer-clarification", func(c *Client) error {
			_, err := c.Answer(ctx, "p", signals.AnswerClarificationRequest{Answers: map[string]string{"q": "a"}})
			return err
		}, signals.AnswerClarificationRequest{Answers: map[string]string{"q": "a"}}},
		{"confirm-skip", func(c *Client) error {
			_, err := c.ConfirmSkip(ctx, "p", signals.ConfirmSkipRequest{RequestID: "s1", Approve: true})
			return err
		}, signals.ConfirmSkipRequest{RequestID: "s1", Approve: true}},
		{"edit-plan", func(c *Client) error {
			_, err := c.Edit(ctx, "p", signals.EditPlanRequest{Reason: "r"})
			return err
		}, signals.EditPlanRequest{Reason: "r"}},
		{"pause", func(c *Client) error {
			_, err := c.Pause(ctx, "p", signals.ControlRequest{Reason: "lunch"})
			return err
		}, signals.ControlRequest{Reason: "lunch"}},
		{"resume", func(c *Client) error {
			_, err := c.Resume(ctx, "p", signals.ControlRequest{})
			return err
		}, signals.ControlRequest{}},
		{"rollback", func(c *Client) error {
			_, err := c.Rollback(ctx, "p", "")
			return err
		}, signals.RollbackRequest{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := mocks.NewClient(t)
			h := mocks.NewWorkflowUpdateHandle(t)
			h.On("Get", mock.Anything, mock.Anything).Return(nil).Once()
			tc.On("UpdateWorkflow", mock.Anything, client.UpdateWorkflowOptions{
				WorkflowID: "p", UpdateName: tt.name, Args: []any{tt.arg},
				WaitForStage: client.WorkflowUpdateStageCompleted,
			}).Return(h, nil).Once()
			require.NoError(t, tt.call(New(tc)))
		})
	}
}

func TestQueriesUseContractNames(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(*Client) error
	}{
		{"progress", func(c *Client) error { _, err := c.Progress(ctx, "p"); return err }},
		{"plan", func(c *Client) error { _, err := c.Plan(ctx, "p"); return err }},
		{"options", func(c *Client) error { _, err := c.Options(ctx, "p"); return err }},
		{"pending", func(c *Client) error { _, err := c.Pending(ctx, "p"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := mocks.NewClient(t)
			v := mocks.NewEncodedValue(t)
			v.On("Get", mock.Anything).Return(nil).Once()
			tc.On("QueryWorkflow", mock.Anything, "p", "", tt.name).Return(v, nil).Once()
			// Progress asks whether the plan still runs first: a running
			// one whose log carries no progress answers by its query.
			tc.On("DescribeWorkflow", mock.Anything, "p", "").Return(&client.WorkflowExecutionDescription{
				RawResponse: described(enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, 40, false, nil),
			}, nil).Maybe()
			tc.On("WorkflowService").Return(&reverseService{}).Maybe()
			require.NoError(t, tt.call(New(tc)))
		})
	}
}

// cancelService records the cancel requests it is sent, and answers
// err.
type cancelService struct {
	workflowservice.WorkflowServiceClient
	got []*workflowservice.RequestCancelWorkflowExecutionRequest
	err error
}

func (s *cancelService) RequestCancelWorkflowExecution(_ context.Context, req *workflowservice.RequestCancelWorkflowExecutionRequest, _ ...grpc.CallOption) (*workflowservice.RequestCancelWorkflowExecutionResponse, error) {
	s.got = append(s.got, req)
	return &workflowservice.RequestCancelWorkflowExecutionResponse{}, s.err
}

func TestCancelAndResult(t *testing.T) {
	tc := mocks.NewClient(t)
	svc := &cancelService{}
	tc.On("WorkflowService").Return(svc)
	run := mocks.NewWorkflowRun(t)
	run.On("Get", mock.Anything, mock.Anything).
		Run(func(args mock.Arguments) {
			*args.Get(1).(*signals.Result) = signals.Result{Status: signals.StatusCancelled, Summary: "partial"}
		}).
		Return(nil).Once()
	tc.On("GetWorkflow", mock.Anything, "p", "").Return(run).Once()

	c := New(tc)
	require.NoError(t, c.Cancel(context.Background(), "p"))
	res, err := c.Result(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, signals.Result{Status: signals.StatusCancelled, Summary: "partial"}, res)
	require.Len(t, svc.got, 1)
	assert.Equal(t, "p", svc.got[0].GetWorkflowExecution().GetWorkflowId())
	assert.Equal(t, "default", svc.got[0].GetNamespace())
	assert.Equal(t, "user", svc.got[0].GetIdentity(), "no caller named: the run's word for nobody in particular")
	assert.NotEmpty(t, svc.got[0].GetRequestId())
}

// TestCancelNamesTheCaller: the caller and reason go with the request,
// the Client's identity standing in for a caller left empty, in the
// Client's namespace.
func TestCancelNamesTheCaller(t *testing.T) {
	tc := mocks.NewClient(t)
	svc := &cancelService{}
	tc.On("WorkflowService").Return(svc)
	c := New(tc, WithIdentity("ci-bot"), WithNamespace("plans"))
	require.NoError(t, c.Cancel(context.Background(), "p", signals.ControlRequest{By: "alice", Reason: "wrong goal"}))
	require.NoError(t, c.Cancel(context.Background(), "q", signals.ControlRequest{Reason: strings.Repeat("x", signals.MaxTextBytes+10)}))
	require.Len(t, svc.got, 2)
	assert.Equal(t, "alice", svc.got[0].GetIdentity())
	assert.Equal(t, "wrong goal", svc.got[0].GetReason())
	assert.Equal(t, "plans", svc.got[0].GetNamespace())
	assert.Equal(t, "ci-bot", svc.got[1].GetIdentity())
	assert.LessOrEqual(t, len(svc.got[1].GetReason()), signals.MaxTextBytes, "the reason is bounded")
}

func TestCancelWrapsTheError(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("WorkflowService").Return(&cancelService{err: errors.New("not found")})
	assert.EqualError(t, New(tc).Cancel(context.Background(), "p"), "plan p: cancel: not found")
}

func TestResultOfAFailedOrCancelledPlan(t *testing.T) {
	failed := signals.Result{Status: signals.StatusFailed, Summary: "partial", Error: "2 step(s) failed"}
	cancelled := signals.Result{Status: signals.StatusCancelled, Summary: "stopped", Error: "cancelled"}
	tests := []struct {
		name string
		err  error
		want signals.Result
	}{
		{"failed", overTheWire(temporal.NewNonRetryableApplicationError(failed.Error, signals.ErrorTypePlanFailed, nil, failed)), failed},
		{"cancelled", overTheWire(temporal.NewCanceledError(cancelled)), cancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := mocks.NewClient(t)
			run := mocks.NewWorkflowRun(t)
			run.On("Get", mock.Anything, mock.Anything).Return(tt.err).Once()
			tc.On("GetWorkflow", mock.Anything, "p", "").Return(run).Once()
			res, err := New(tc).Result(context.Background(), "p")
			require.NoError(t, err)
			assert.Equal(t, tt.want, res)
		})
	}
}

func TestResultReportsAnEndWithoutResult(t *testing.T) {
	tc := mocks.NewClient(t)
	run := mocks.NewWorkflowRun(t)
	run.On("Get", mock.Anything, mock.Anything).Return(errors.New("workflow terminated")).Once()
	tc.On("GetWorkflow", mock.Anything, "p", "").Return(run).Once()
	_, err := New(tc).Result(context.Background(), "p")
	assert.EqualError(t, err, "plan p: result: workflow terminated")
}

func TestUpdateRejectionReachesTheCallerTyped(t *testing.T) {
	tc := mocks.NewClient(t)
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(overTheWire(signals.Reject(signals.ErrorTypeUnknownOption, `unknown option "o9"`))).Once()
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(h, nil).Once()

	_, err := New(tc).Select(context.Background(), "p", signals.SelectOptionRequest{OptionID: "o9"})
	require.Error(t, err)
	assert.ErrorIs(t, err, signals.ErrRejected)
	assert.Equal(t, signals.ErrorTypeUnknownOption, signals.RejectionType(err))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable())
	assert.EqualError(t, err, `plan p: update select-option: rejected: unknown option "o9"`,
		"the refusal reads as the run wrote it, once wrapped")
}
