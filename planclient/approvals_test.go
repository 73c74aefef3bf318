package planclient

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/mocks"

	"github.com/planmode/planmode/signals"
)

func TestApprovalUpdatesUseContractNamesAndIdentity(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		call func(*Client) error
		arg  any
	}{
		{"approve-tool-call", func(c *Client) error {
			_, err := c.Approve(ctx, "p", signals.ApproveToolCallRequest{RequestID: "a1", ArgsDigest: "d", PlanVersion: 2})
			return err
		}, signals.ApproveToolCallRequest{RequestID: "a1", ArgsDigest: "d", PlanVersion: 2, By: "svc"}},
		{"deny-tool-call", func(c *Client) error {
			_, err := c.Deny(ctx, "p", signals.DenyToolCallRequest{RequestID: "a1", Reason: "no", By: "ann"})
			return err
		}, signals.DenyToolCallRequest{RequestID: "a1", Reason: "no", By: "ann"}},
		{"raise-budget", func(c *Client) error {
			_, err := c.RaiseBudget(ctx, "p", signals.RaiseBudgetRequest{MaxTokens: 10, Reason: "more"})
			return err
		}, signals.RaiseBudgetRequest{MaxTokens: 10, Reason: "more", By: "svc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tc := mocks.NewClient(t)
			h := mocks.NewWorkflowUpdateHandle(t)
			h.On("Get", mock.Anything, mock.Anything).Return(nil).Once()
			tc.On("UpdateWorkflow", mock.Anything, client.UpdateWorkflowOptions{
				WorkflowID: "p", UpdateName: tt.name, Args: []any{tt.arg},
				WaitForStage: client.WorkflowUpdateStageCompleted,
			}).Return(h, nil).Once()
			require.NoError(t, tt.call(New(tc, WithIdentity("svc"))))
		})
	}
}

// TestStaleApprovalIsTyped: a refusal as stale reaches the caller typed,
// so a service can tell it from other rejections and ask again.
func TestStaleApprovalIsTyped(t *testing.T) {
	tc := mocks.NewClient(t)
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(signals.Reject(signals.ErrorTypeStaleApproval, "plan edited")).Once()
	tc.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(h, nil).Once()
	_, err := New(tc).Approve(context.Background(), "p", signals.ApproveToolCallRequest{RequestID: "a1"})
	require.Error(t, err)
	assert.Equal(t, signals.ErrorTypeStaleApproval, signals.RejectionType(err))
	assert.True(t, signals.IsRejected(err))
	assert.Contains(t, err.Error(), "plan p: ")
}

// listing returns a visibility page of the plans ids.
func listing(ids ...string) *workflowservice.ListWorkflowExecutionsResponse {
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, id := range ids {
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "r-" + id},
		})
	}
	return resp
}

// TestApprovalsListsEveryPlanAndReportsTheSilentOnes: the inbox asks
// every plan visibility lists as awaiting approval or a skip confirmation
// (which PlanAwaiting shows first, over an approval); a plan whose query
// fails is reported and the others still listed.
func TestApprovalsListsEveryPlanAndReportsTheSilentOnes(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("ListWorkflow", mock.Anything, mock.MatchedBy(func(r *workflowservice.ListWorkflowExecutionsRequest) bool {
		return r.GetQuery() == "WorkflowType = 'PlanMode' AND ExecutionStatus = 'Running' AND PlanAwaiting IN ('approval', 'confirmation')"
	})).Return(listing("p1", "p2", "p3"), nil).Once()
	pending := signals.Pending{Awaiting: signals.AwaitingApproval, Approvals: []signals.ToolApproval{
		{RequestID: "approval-1", StepID: "s2", Tool: "mcp__github__create_issue", ArgsDigest: "sha256:aa", PlanVersion: 3},
		{RequestID: "approval-2", StepID: "s4", Tool: "run_command", ArgsDigest: "sha256:bb", PlanVersion: 3},
	}}
	payloads, err := converter.GetDefaultDataConverter().ToPayloads(pending)
	require.NoError(t, err)
	tc.On("QueryWorkflow", mock.Anything, "p1", "", signals.PendingQuery.Name).Return(client.NewValue(payloads), nil).Once()
	tc.On("QueryWorkflow", mock.Anything, "p2", "", signals.PendingQuery.Name).Return(nil, errors.New("no worker polls")).Once()
	empty, err := converter.GetDefaultDataConverter().ToPayloads(signals.Pending{})
	require.NoError(t, err)
	tc.On("QueryWorkflow", mock.Anything, "p3", "", signals.PendingQuery.Name).Return(client.NewValue(empty), nil).Once()

	inbox, err := New(tc).Approvals(context.Background())
	require.NoError(t, err)
	require.Len(t, inbox.Approvals, 2)
	assert.Equal(t, "p1", inbox.Approvals[0].WorkflowID)
	assert.Equal(t, "approval-2", inbox.Approvals[1].RequestID)
	require.Len(t, inbox.Unanswered, 1)
	assert.Equal(t, "p2", inbox.Unanswered[0].WorkflowID)
	assert.Contains(t, inbox.Unanswered[0].Error, "no worker polls")
	assert.False(t, inbox.Truncated)
}

func TestApprovalsIsBounded(t *testing.T) {
	tc := mocks.NewClient(t)
	page := make([]string, 100)
	for i := range page {
		page[i] = "p"
	}
	first, second, third := listing(page...), listing(page...), listing(page...)
	first.NextPageToken, second.NextPageToken = []byte("2"), []byte("3")
	tc.On("ListWorkflow", mock.Anything, mock.Anything).Return(first, nil).Once()
	tc.On("ListWorkflow", mock.Anything, mock.Anything).Return(second, nil).Once()
	tc.On("ListWorkflow", mock.Anything, mock.Anything).Return(third, nil).Maybe()
	empty, err := converter.GetDefaultDataConverter().ToPayloads(signals.Pending{})
	require.NoError(t, err)
	tc.On("QueryWorkflow", mock.Anything, "p", "", signals.PendingQuery.Name).Return(client.NewValue(empty), nil).Times(MaxInboxPlans)

	inbox, err := New(tc).Approvals(context.Background())
	require.NoError(t, err)
	assert.True(t, inbox.Truncated)
}

func TestApprovalsFailsWithoutVisibility(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("ListWorkflow", mock.Anything, mock.Anything).Return(nil, errors.New("visibility unavailable")).Once()
	_, err := New(tc).Approvals(context.Background())
	assert.ErrorContains(t, err, "list plans awaiting approval: visibility unavailable")
}
