package planclient

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// overTheWire returns err as a client sees it: turned into a Temporal
// failure by the worker and back into an error by the client.
func overTheWire(err error) error {
	fc := temporal.GetDefaultFailureConverter()
	return fc.FailureToError(fc.ErrorToFailure(err))
}

func TestWrapMarksATypedRefusal(t *testing.T) {
	err := wrap("p", fmt.Errorf("update pause: %w", overTheWire(signals.Reject(signals.ErrorTypeWrongPhase, "already paused"))))
	assert.EqualError(t, err, "plan p: update pause: rejected: already paused", "no SDK decorations")
	assert.ErrorIs(t, err, signals.ErrRejected)
	assert.Equal(t, signals.ErrorTypeWrongPhase, signals.RejectionType(err))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "the application error stays reachable")
	assert.True(t, app.NonRetryable())
}

func TestWrapLeavesOtherErrorsTheirKind(t *testing.T) {
	notFound := serviceerror.NewNotFound("workflow not found")
	err := wrap("p", fmt.Errorf("query plan: %w", notFound))
	assert.EqualError(t, err, "plan p: query plan: workflow not found")
	assert.NotErrorIs(t, err, signals.ErrRejected)
	var nf *serviceerror.NotFound
	assert.ErrorAs(t, err, &nf)

	failed := wrap("p", fmt.Errorf("result: %w", overTheWire(temporal.NewNonRetryableApplicationError("bad goal", signals.ErrorTypeInvalidRequest, nil))))
	assert.EqualError(t, failed, "plan p: result: bad goal")
	assert.NotErrorIs(t, failed, signals.ErrRejected, "a refused start request is not a refused input")

	assert.NoError(t, wrap("p", nil))
	once := wrap("p", errors.New("boom"))
	assert.Same(t, once, wrap("p", once), "an error is wrapped once")
}

func TestStatusAnswersTheLatestRunsStatus(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("DescribeWorkflow", mock.Anything, "p", "").
		Return(&client.WorkflowExecutionDescription{
			RawResponse: described(enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, 40, false, nil),
		}, nil).Once()
	tc.On("DescribeWorkflow", mock.Anything, "gone", "").
		Return(nil, serviceerror.NewNotFound("workflow not found")).Once()
	c := New(tc)

	st, err := c.Status(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, st)

	_, err = c.Status(context.Background(), "gone")
	assert.EqualError(t, err, "plan gone: describe: workflow not found")
	var nf *serviceerror.NotFound
	assert.ErrorAs(t, err, &nf)
}
