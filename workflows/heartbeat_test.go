package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// heartbeatLog records the heartbeat timeout every activity was scheduled
// with, by activity type, in start order.
type heartbeatLog struct {
	mu     sync.Mutex
	byType map[string][]time.Duration
}

// watchHeartbeats records the heartbeat timeouts of h's activities.
func watchHeartbeats(h *harness) *heartbeatLog {
	l := &heartbeatLog{byType: map[string][]time.Duration{}}
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.byType[info.ActivityType.Name] = append(l.byType[info.ActivityType.Name], info.HeartbeatTimeout)
	})
	return l
}

// of returns the timeouts recorded for the activity type name.
func (l *heartbeatLog) of(name string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byType[name]
}

func TestHeartbeatTimeoutReachesLLMAndToolActivities(t *testing.T) {
	tests := []struct {
		name string
		set  plan.Duration
		want time.Duration
	}{
		{name: "default", want: 30 * time.Second},
		{name: "fast failover", set: plan.Duration(2 * time.Second), want: 2 * time.Second},
		{name: "slow tools", set: plan.Duration(5 * time.Minute), want: 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			hb := watchHeartbeats(h)
			req := autoReq()
			req.Workspace = "/srv/repo"
			req.Execution.HeartbeatTimeout = tt.set
			res := h.run(req)
			require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

			for _, name := range []string{"Clarify", "GenerateOptions", "ExecuteLLMStep", "Summarize", "SnapshotWorkspace"} {
				got := hb.of(name)
				require.NotEmpty(t, got, "%s ran", name)
				for _, d := range got {
					assert.Equal(t, tt.want, d, "%s", name)
				}
			}
		})
	}
}

func TestHeartbeatTimeoutReachesActivitiesOfUpdates(t *testing.T) {
	h := newHarness(t)
	hb := watchHeartbeats(h)
	req := manualReq()
	req.Workspace = "/srv/repo"
	req.Execution.HeartbeatTimeout = plan.Duration(3 * time.Second)
	var refined *outcome[signals.OptionsView]
	var rolledBack *outcome[signals.RollbackResponse]
	h.at(time.Minute, func() { refined = update(h, signals.RefinePlan, signals.RefinePlanRequest{Feedback: "use sessions"}) })
	h.selectAt(2 * time.Minute)
	h.at(150*time.Second, func() { rolledBack = rollbackUpdate(h) })
	res := h.run(req)

	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Equal(t, 2, requireAccepted(t, refined).Revision)
	requireAccepted(t, rolledBack)
	assert.Equal(t, []time.Duration{3 * time.Second, 3 * time.Second}, hb.of("GenerateOptions"),
		"the refine update's options use the run's timeout, not the default")
	assert.Equal(t, []time.Duration{3 * time.Second}, hb.of("RestoreWorkspace"), "so does the rollback update's restore")
}
