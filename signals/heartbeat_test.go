package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
)

func TestHeartbeatTimeoutValidation(t *testing.T) {
	tests := []struct {
		name    string
		timeout plan.Duration
		wantErr string
	}{
		{name: "zero takes the default", timeout: 0},
		{name: "the minimum", timeout: MinHeartbeatTimeout},
		{name: "fast failover", timeout: plan.Duration(2 * time.Second)},
		{name: "long", timeout: plan.Duration(10 * time.Minute)},
		{name: "below the minimum", timeout: plan.Duration(500 * time.Millisecond),
			wantErr: "execution.heartbeatTimeout 500ms: want at least 1s"},
		{name: "negative", timeout: plan.Duration(-time.Second),
			wantErr: "execution.heartbeatTimeout -1s: want at least 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := StartRequest{Goal: "Fix the cart", Execution: ExecutionPolicy{HeartbeatTimeout: tt.timeout}}.Validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestHeartbeatTimeoutDefaultAndWire(t *testing.T) {
	assert.Equal(t, DefaultHeartbeatTimeout, StartRequest{Goal: "g"}.WithDefaults().Execution.HeartbeatTimeout)
	set := StartRequest{Goal: "g", Execution: ExecutionPolicy{HeartbeatTimeout: plan.Duration(5 * time.Second)}}
	assert.Equal(t, plan.Duration(5*time.Second), set.WithDefaults().Execution.HeartbeatTimeout, "a set timeout stays")

	var req StartRequest
	require.NoError(t, json.Unmarshal([]byte(`{"goal":"g","execution":{"heartbeatTimeout":"2s"}}`), &req))
	assert.Equal(t, plan.Duration(2*time.Second), req.Execution.HeartbeatTimeout)
	b, err := json.Marshal(StartRequest{Goal: "g"})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "heartbeatTimeout", "an unset timeout stays off the wire")
}
