package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

var gated = signals.ToolApproval{
	RequestID: "approval-1", StepID: "s2", Tool: "mcp__github__create_issue",
	Args: json.RawMessage(`{"title":"Fix"}`), ArgsDigest: plan.ArgsDigest(json.RawMessage(`{"title":"Fix"}`)),
	PlanVersion: 3, Why: "worker rule 1 (mcp__github__* -> ask)",
	Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Deadline: time.Date(2026, 1, 3, 3, 4, 5, 0, time.UTC),
	OnTimeout: signals.ApprovalTimeoutDeny,
}

// expectUpdate makes c answer update name on plan-1 with arg by decided.
func expectUpdate(t *testing.T, c *mocks.Client, name string, arg any, answer any) {
	t.Helper()
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Run(func(args mock.Arguments) {
		b, _ := json.Marshal(answer)
		require.NoError(t, json.Unmarshal(b, args.Get(1)))
	}).Return(nil).Once()
	c.On("UpdateWorkflow", mock.Anything, client.UpdateWorkflowOptions{
		WorkflowID: "plan-1", UpdateName: name, Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted,
	}).Return(h, nil).Once()
}

// TestApproveSendsWhatThePendingRequestShows: approve reads the pending
// request and approves exactly its digest and plan version, with edited
// arguments from --args.
func TestApproveSendsWhatThePendingRequestShows(t *testing.T) {
	file := filepath.Join(t.TempDir(), "args.yaml")
	require.NoError(t, os.WriteFile(file, []byte("title: Fix the login bug\nlabels: [bug]\n"), 0o600))
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	answer(t, c, signals.PendingQuery.Name, signals.Pending{Awaiting: signals.AwaitingApproval, Approvals: []signals.ToolApproval{gated}})
	want := signals.ApproveToolCallRequest{RequestID: "approval-1", ArgsDigest: gated.ArgsDigest, PlanVersion: 3,
		Args: json.RawMessage(`{"labels":["bug"],"title":"Fix the login bug"}`), Note: "checked", By: caller()}
	expectUpdate(t, c, "approve-tool-call", want, signals.ApprovalDecision{RequestID: "approval-1",
		Decision: signals.DecisionApproved, By: caller(), EditedArgs: true})
	d.client = c

	code := run(context.Background(), d, []string{"approve", "plan-1", "approval-1", "--args", file, "--reason", "checked"})
	assert.Equal(t, exitOK, code, errOut.String())
	assert.Equal(t, "plan plan-1: request approval-1 approved with edited arguments by "+caller()+"\n", out.String())
}

func TestApproveRefusesAnUnknownRequestWithoutSending(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	answer(t, c, signals.PendingQuery.Name, signals.Pending{Approvals: []signals.ToolApproval{gated}})
	d.client = c

	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"approve", "plan-1", "approval-9"}))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), `plan plan-1 has no open approval request "approval-9": open are approval-1`)
}

func TestApproveRefusesArgsThatAreNotAnObject(t *testing.T) {
	file := filepath.Join(t.TempDir(), "args.json")
	require.NoError(t, os.WriteFile(file, []byte(`["rm", "-rf"]`), 0o600))
	d, _, errOut := newTestDeps(t, "")
	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"approve", "plan-1", "approval-1", "--args", file, "--address", nowhere(t)}))
	assert.Contains(t, errOut.String(), "args.json")
}

// TestStaleApprovalExitsRejected: a plan that refuses the approval as
// stale makes the command exit 4 with the plan's reason.
func TestStaleApprovalExitsRejected(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	answer(t, c, signals.PendingQuery.Name, signals.Pending{Approvals: []signals.ToolApproval{gated}})
	h := mocks.NewWorkflowUpdateHandle(t)
	h.On("Get", mock.Anything, mock.Anything).Return(signals.Reject(signals.ErrorTypeStaleApproval, "plan edited since")).Once()
	c.On("UpdateWorkflow", mock.Anything, mock.Anything).Return(h, nil).Once()
	d.client = c

	assert.Equal(t, exitRejected, run(context.Background(), d, []string{"approve", "plan-1", "approval-1"}))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "rejected: plan edited since")
}

func TestDenyAndRaiseBudget(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	expectUpdate(t, c, "deny-tool-call", signals.DenyToolCallRequest{RequestID: "approval-1", Reason: "never on main", By: caller()},
		signals.ApprovalDecision{RequestID: "approval-1", Decision: signals.DecisionDenied, By: "ann"})
	d.client = c
	assert.Equal(t, exitOK, run(context.Background(), d, []string{"deny", "plan-1", "approval-1", "--reason", "never on main"}), errOut.String())
	assert.Equal(t, "plan plan-1: request approval-1 denied by ann\n", out.String())

	d, out, errOut = newTestDeps(t, "")
	c = mocks.NewClient(t)
	c.On("Close").Return().Once()
	expectUpdate(t, c, "raise-budget", signals.RaiseBudgetRequest{MaxTokens: 400000, MaxCostUSD: 5, Reason: "worth it", By: caller()},
		signals.RaiseBudgetResponse{Budget: signals.Budget{MaxTokens: 400000, MaxCostUSD: 5}, Resumed: true})
	d.client = c
	assert.Equal(t, exitOK, run(context.Background(), d, []string{"raise-budget", "plan-1", "--max-tokens", "400000",
		"--max-cost-usd", "5", "--reason", "worth it"}), errOut.String())
	assert.Equal(t, "plan plan-1: budget now 400000 tokens, $5.00; resumed\n", out.String())
}

// TestInputsWithoutReasonAreRefusedBeforeDialling: a denial or a raise
// without a reason never reaches the server.
func TestInputsWithoutReasonAreRefusedBeforeDialling(t *testing.T) {
	for _, args := range [][]string{
		{"deny", "plan-1", "approval-1"},
		{"raise-budget", "plan-1", "--max-tokens", "10"},
		{"raise-budget", "plan-1", "--reason", "more"},
	} {
		d, _, errOut := newTestDeps(t, "")
		assert.Equal(t, exitRejected, run(context.Background(), d, append(args, "--address", nowhere(t))), "%v", args)
		assert.NotContains(t, errOut.String(), "connect", args)
	}
}

func TestApprovalsListsTheInbox(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	c.On("ListWorkflow", mock.Anything, mock.Anything).Return(&workflowservice.ListWorkflowExecutionsResponse{
		Executions: []*workflowpb.WorkflowExecutionInfo{{Execution: &commonpb.WorkflowExecution{WorkflowId: "plan-1"}}},
	}, nil).Once()
	answer(t, c, signals.PendingQuery.Name, signals.Pending{Approvals: []signals.ToolApproval{gated}})
	d.client = c

	assert.Equal(t, exitOK, run(context.Background(), d, []string{"approvals", "--json"}), errOut.String())
	var inbox planclient.Inbox
	require.NoError(t, json.Unmarshal(out.Bytes(), &inbox))
	require.Len(t, inbox.Approvals, 1)
	assert.Equal(t, "plan-1", inbox.Approvals[0].WorkflowID)
	assert.Equal(t, gated.ArgsDigest, inbox.Approvals[0].ArgsDigest)
	assert.JSONEq(t, `{"title":"Fix"}`, string(inbox.Approvals[0].Args))
}

func TestRenderInbox(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, renderInbox(&b, planclient.Inbox{
		Approvals:  []planclient.PlanApproval{{WorkflowID: "plan-1", ToolApproval: gated}},
		Unanswered: []planclient.Unanswered{{WorkflowID: "plan-2", Error: "no worker"}},
	}))
	assert.Contains(t, b.String(), "plan-1  approval-1  s2    mcp__github__create_issue")
	assert.Contains(t, b.String(), "plan plan-2 did not answer: no worker")
}
