package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"google.golang.org/grpc"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// TestInputsGoThroughTheClient runs every command that sends an input to a
// plan against a mocked Temporal client whose plan refuses it: each sends
// its contract name with the caller in by (the client fills it in), and
// the refusal is printed once, as the run wrote it, with the rejected exit
// code.
func TestInputsGoThroughTheClient(t *testing.T) {
	edits := filepath.Join(t.TempDir(), "edits.json")
	require.NoError(t, os.WriteFile(edits, []byte(`{"edits": [{"op": "remove", "stepId": "s2"}], "reason": "r"}`), 0o600))
	by := caller()
	cases := []struct {
		args []string
		name string
		arg  any
	}{
		{[]string{"select", "plan-1", "r1-o2"}, "select-option", signals.SelectOptionRequest{OptionID: "r1-o2", By: by}},
		{[]string{"refine", "plan-1", "--feedback", "cheaper"}, "refine-plan", signals.RefinePlanRequest{Feedback: "cheaper", By: by}},
		{[]string{"answer", "plan-1", "--answer", "1=yes"}, "answer-clarification",
			signals.AnswerClarificationRequest{Answers: map[string]string{"1": "yes"}, By: by}},
		{[]string{"confirm-skip", "plan-1", "skip-1", "--approve"}, "confirm-skip",
			signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true, By: by}},
		{[]string{"edit", "plan-1", "--file", edits}, "edit-plan",
			signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s2"}}, Reason: "r", By: by}},
		{[]string{"pause", "plan-1", "--reason", "lunch"}, "pause", signals.ControlRequest{Reason: "lunch", By: by}},
		{[]string{"resume", "plan-1"}, "resume", signals.ControlRequest{By: by}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, out, errOut := newTestDeps(t, "")
			c := mocks.NewClient(t)
			c.On("Close").Return().Once()
			h := mocks.NewWorkflowUpdateHandle(t)
			h.On("Get", mock.Anything, mock.Anything).
				Return(endedWith(signals.Reject(signals.ErrorTypeWrongPhase, "not now"))).Once()
			c.On("UpdateWorkflow", mock.Anything, client.UpdateWorkflowOptions{
				WorkflowID: "plan-1", UpdateName: tc.name, Args: []any{tc.arg},
				WaitForStage: client.WorkflowUpdateStageCompleted,
			}).Return(h, nil).Once()
			d.client = c

			code := run(context.Background(), d, tc.args)
			assert.Equal(t, exitRejected, code)
			assert.Empty(t, out.String())
			assert.Equal(t, "planmode: plan plan-1: update "+tc.name+": rejected: not now\n", errOut.String())
		})
	}
}

// cancelService answers each cancel request with err, and keeps the
// last.
type cancelService struct {
	workflowservice.WorkflowServiceClient
	got *workflowservice.RequestCancelWorkflowExecutionRequest
	err error
}

func (s *cancelService) RequestCancelWorkflowExecution(_ context.Context, req *workflowservice.RequestCancelWorkflowExecutionRequest, _ ...grpc.CallOption) (*workflowservice.RequestCancelWorkflowExecutionResponse, error) {
	s.got = req
	return &workflowservice.RequestCancelWorkflowExecutionResponse{}, s.err
}

func TestCancelGoesThroughTheClient(t *testing.T) {
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	svc := &cancelService{err: serviceerror.NewNotFound("workflow not found")}
	c.On("WorkflowService").Return(svc).Once()
	d.client = c

	assert.Equal(t, exitNotFound, run(context.Background(), d, []string{"cancel", "plan-1"}))
	assert.Empty(t, out.String())
	assert.Equal(t, "planmode: plan plan-1: cancel: workflow not found\n", errOut.String())
	require.NotNil(t, svc.got)
	assert.Equal(t, "plan-1", svc.got.GetWorkflowExecution().GetWorkflowId())
	assert.Equal(t, caller(), svc.got.GetIdentity(), "the request names who cancelled")
}
