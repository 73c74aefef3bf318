package tools

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandBeatIntervalTakesTheShorter(t *testing.T) {
	tests := []struct {
		name       string
		configured time.Duration
		max        time.Duration
		want       time.Duration
	}{
		{name: "no cap", configured: 5 * time.Second, want: 5 * time.Second},
		{name: "a shorter cap wins", configured: 5 * time.Second, max: 600 * time.Millisecond, want: 600 * time.Millisecond},
		{name: "a longer cap changes nothing", configured: 5 * time.Second, max: 10 * time.Second, want: 5 * time.Second},
		{name: "the default interval", max: 20 * time.Second, want: DefaultHeartbeatInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runner{cfg: Config{HeartbeatInterval: tt.configured}.withDefaults()}
			assert.Equal(t, tt.want, r.beatInterval(Env{MaxHeartbeatInterval: tt.max}))
		})
	}
}

func TestRunCommandHeartbeatsWithinTheCap(t *testing.T) {
	requireBinary(t, "sleep")
	sb := newWorkspace(t, nil)
	cfg := cmdConfig()
	cfg.HeartbeatInterval = time.Hour
	var beats atomic.Int32
	tool, _ := Builtin(cfg).Get("run_command")
	env := Env{Root: sb, Heartbeat: func(...any) { beats.Add(1) }, MaxHeartbeatInterval: 10 * time.Millisecond}
	_, err := tool.Run(context.Background(), env, json.RawMessage(`{"command":"sleep","args":["0.3"]}`))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, beats.Load(), int32(3), "the cap, not the hourly interval, sets the pace")
}
