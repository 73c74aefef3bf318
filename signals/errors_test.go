package signals

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// overTheWire returns err as a client sees it: turned into a Temporal
// failure by the worker and back into an error by the client.
func overTheWire(err error) error {
	fc := temporal.GetDefaultFailureConverter()
	return fc.FailureToError(fc.ErrorToFailure(err))
}

func TestRejectIsTypedAndNotRetryable(t *testing.T) {
	for _, typ := range RejectionTypes {
		t.Run(typ, func(t *testing.T) {
			err := overTheWire(Reject(typ, "no option has rank %d", 9))
			var app *temporal.ApplicationError
			require.ErrorAs(t, err, &app)
			assert.Equal(t, typ, app.Type())
			assert.True(t, app.NonRetryable())
			assert.Equal(t, "rejected: no option has rank 9", app.Message())
			assert.Equal(t, typ, RejectionType(err))
			assert.True(t, IsRejected(err))
			assert.Equal(t, "rejected: no option has rank 9", RejectionReason(err))
		})
	}
}

func TestRejectionTypeIgnoresOtherErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		rejected bool
	}{
		{"plain", errors.New("boom"), false},
		{"wrapped sentinel", fmt.Errorf("%w: old style", ErrRejected), true},
		{"other application error", temporal.NewApplicationError("boom", "Other"), false},
		{"plan failed", temporal.NewNonRetryableApplicationError("boom", ErrorTypePlanFailed, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, RejectionType(tt.err))
			assert.Equal(t, tt.rejected, IsRejected(tt.err))
		})
	}
}

func TestResultFromError(t *testing.T) {
	res := Result{Status: StatusFailed, Summary: "partial", Error: "1 step(s) failed", Plan: &plan.Plan{Title: "p"}}
	cancelled := Result{Status: StatusCancelled, Summary: "stopped", Error: "cancelled"}
	tests := []struct {
		name string
		err  error
		want Result
		ok   bool
	}{
		{"failed", overTheWire(temporal.NewNonRetryableApplicationError(res.Error, ErrorTypePlanFailed, nil, res)), res, true},
		{"cancelled", overTheWire(temporal.NewCanceledError(cancelled)), cancelled, true},
		{"cancelled in process", temporal.NewCanceledError(cancelled), cancelled, true},
		{"wrapped", fmt.Errorf("plan p: %w", overTheWire(temporal.NewCanceledError(cancelled))), cancelled, true},
		{"cancelled without a result", overTheWire(temporal.NewCanceledError()), Result{}, false},
		{"invalid request", overTheWire(temporal.NewNonRetryableApplicationError("bad", ErrorTypeInvalidRequest, nil)), Result{}, false},
		{"failed without details", overTheWire(temporal.NewNonRetryableApplicationError("bad", ErrorTypePlanFailed, nil)), Result{}, false},
		{"other", errors.New("terminated"), Result{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ResultFromError(tt.err)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
