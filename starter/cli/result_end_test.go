package cli

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// endedWith returns err as a client reads it from a closed run.
func endedWith(err error) error {
	fc := temporal.GetDefaultFailureConverter()
	return fc.FailureToError(fc.ErrorToFailure(err))
}

// runEndsWith makes the mocked client's plan-1 end with err.
func runEndsWith(t *testing.T, tc *mocks.Client, err error) {
	run := mocks.NewWorkflowRun(t)
	run.On("Get", mock.Anything, mock.Anything).Return(err).Once()
	tc.On("GetWorkflow", mock.Anything, "plan-1", "").Return(run).Once()
}

func TestResultOfAPlanThatEndedFailedOrCanceled(t *testing.T) {
	failed := signals.Result{Status: signals.StatusFailed, Summary: "Two of three steps done.", Error: "1 step(s) failed: s3: boom"}
	cancelled := signals.Result{Status: signals.StatusCancelled, Summary: "Stopped after s1.", Error: "cancelled"}
	cases := []struct {
		name string
		err  error
		want signals.Result
	}{
		{"failed", endedWith(temporal.NewNonRetryableApplicationError(failed.Error, signals.ErrorTypePlanFailed, nil, failed)), failed},
		{"canceled", endedWith(temporal.NewCanceledError(cancelled)), cancelled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, out, errOut := newTestDeps(t, "")
			c := mocks.NewClient(t)
			c.On("Close").Return().Once()
			runEndsWith(t, c, tc.err)
			d.client = c

			code := run(context.Background(), d, []string{"result", "plan-1"})
			assert.Equal(t, exitNotDone, code, errOut.String())
			assert.Contains(t, out.String(), "Status: "+string(tc.want.Status))
			assert.Contains(t, out.String(), "Error: "+tc.want.Error)
			assert.Contains(t, out.String(), tc.want.Summary, "the partial summary is printed")
		})
	}
}

func TestResultOfAPlanThatEndedWithoutAResult(t *testing.T) {
	d, _, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	runEndsWith(t, c, errors.New("workflow execution terminated"))
	d.client = c

	assert.Equal(t, exitOther, run(context.Background(), d, []string{"result", "plan-1"}))
	assert.Contains(t, errOut.String(), "plan plan-1: result: workflow execution terminated")
}

func TestWatchSaysWhyAPlanFailed(t *testing.T) {
	res := signals.Result{Status: signals.StatusFailed, Error: "generate options: model refused"}
	d, out, errOut := newTestDeps(t, "")
	c := mocks.NewClient(t)
	c.On("Close").Return().Once()
	c.On("QueryWorkflow", mock.Anything, "plan-1", "", signals.ProgressQuery.Name).Return(nil, errors.New("no worker answered")).Once()
	described(c, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, nil)
	runEndsWith(t, c, endedWith(temporal.NewNonRetryableApplicationError(res.Error, signals.ErrorTypePlanFailed, nil, res)))
	d.client = c

	require.Equal(t, exitOK, run(context.Background(), d, []string{"watch", "plan-1"}), errOut.String())
	assert.Equal(t, "plan plan-1 ended: Failed\nError: generate options: model refused\nNext: planmode result plan-1\n", out.String())
}
