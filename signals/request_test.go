package signals

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestValidateRefusesUnknownPriorityAndNegativeTimeouts(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(r *StartRequest)
		wantErr string
	}{
		{"unknown priority", func(r *StartRequest) { r.Priority = "urgent" }, `priority "urgent": want low, medium, high or critical`},
		{"negative selection timeout", func(r *StartRequest) { r.Selection.Timeout = plan.Duration(-time.Minute) }, "timeouts must not be negative"},
		{"negative confirm timeout", func(r *StartRequest) { r.Execution.ConfirmTimeout = plan.Duration(-time.Second) }, "timeouts must not be negative"},
		{"negative clarify timeout", func(r *StartRequest) { r.Clarify.Timeout = plan.Duration(-time.Second) }, "timeouts must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := StartRequest{Goal: "g"}
			tc.edit(&r)
			err := r.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
	ok := StartRequest{Goal: "g", Priority: plan.PriorityCritical, Selection: SelectionPolicy{Timeout: plan.Duration(time.Hour)}}
	assert.NoError(t, ok.Validate())
}
