package heartbeat

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktest "go.temporal.io/sdk/testsuite"
)

func TestIntervalFollowsTheTimeout(t *testing.T) {
	tests := []struct {
		name  string
		every time.Duration
		limit time.Duration
		want  time.Duration
	}{
		{name: "no timeout keeps the configured interval", every: 10 * time.Second, want: 10 * time.Second},
		{name: "the default timeout leaves the default alone", limit: 30 * time.Second / PerTimeout, want: DefaultInterval},
		{name: "a long timeout leaves it alone", every: 10 * time.Second, limit: 5 * time.Minute / PerTimeout, want: 10 * time.Second},
		{name: "a short timeout shortens it", every: 10 * time.Second, limit: 2 * time.Second / PerTimeout, want: 666666666},
		{name: "the shortest timeout", limit: time.Second / PerTimeout, want: 333333333},
		{name: "a short configured interval stays", every: 20 * time.Millisecond, limit: time.Second / PerTimeout, want: 20 * time.Millisecond},
		{name: "unset uses the default", want: DefaultInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Interval(tt.every, tt.limit))
		})
	}
}

func TestNothingOutsideAnActivity(t *testing.T) {
	ctx := context.Background()
	assert.Zero(t, Cap(ctx), "no cap outside an activity")
	assert.Nil(t, Recorder(ctx))
	Start(ctx, time.Millisecond, "x")() // starts nothing, stops at once
}

func TestStartBeatsInsideAnActivity(t *testing.T) {
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	beats := make(chan string, 100)
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var d string
		if details.Get(&d) == nil {
			beats <- d
		}
	})
	// beating runs the ticker until the first heartbeat arrives; the SDK
	// throttles the ones after it.
	beating := func(ctx context.Context) (string, error) {
		assert.NotNil(t, Recorder(ctx))
		stop := Start(ctx, 5*time.Millisecond, "waiting")
		defer stop()
		select {
		case b := <-beats:
			return b, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	env.RegisterActivity(beating)
	val, err := env.ExecuteActivity(beating)
	require.NoError(t, err)
	var got string
	require.NoError(t, val.Get(&got))
	assert.Equal(t, "waiting", got)
}

func TestWithDetailsPinsWhatTheBeatsCarry(t *testing.T) {
	tests := []struct {
		name   string
		pinned any
		want   string
	}{
		{name: "pinned details win", pinned: "the text so far", want: "the text so far"},
		{name: "nil leaves each beat its own", want: "own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var suite sdktest.WorkflowTestSuite
			env := suite.NewTestActivityEnvironment()
			beats := make(chan string, 100)
			env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
				var d string
				if details.Get(&d) == nil {
					beats <- d
				}
			})
			// The SDK sends the first heartbeat of an activity at once: one
			// activity for the recorder, one for the ticker.
			recorded := func(ctx context.Context) error {
				Recorder(WithDetails(ctx, func() any { return tt.pinned }))("own")
				return nil
			}
			ticking := func(ctx context.Context) (string, error) {
				stop := Start(WithDetails(ctx, func() any { return tt.pinned }), 5*time.Millisecond, "own")
				defer stop()
				select {
				case b := <-beats:
					return b, nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
			env.RegisterActivity(recorded)
			env.RegisterActivity(ticking)

			_, err := env.ExecuteActivity(recorded)
			require.NoError(t, err)
			select {
			case b := <-beats:
				assert.Equal(t, tt.want, b, "the recorder's beat")
			default:
				t.Fatal("the recorder's beat was not sent")
			}

			val, err := env.ExecuteActivity(ticking)
			require.NoError(t, err)
			var got string
			require.NoError(t, val.Get(&got))
			assert.Equal(t, tt.want, got, "the ticker's beat")
		})
	}
}
