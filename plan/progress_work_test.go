package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// started marks step i of p as having started.
func started(p Plan, is ...int) Plan {
	for _, i := range is {
		p.Steps[i].StartedAt = &t0
	}
	return p
}

func TestPercentOfWork(t *testing.T) {
	fallback := func() Plan {
		p := chain(3)
		p.Steps[2].DependsOn = nil
		p.Steps[0].FallbackStepID = "s3"
		return p
	}
	tests := []struct {
		name string
		plan Plan
		want int
	}{
		{"all pending", chain(4), 0},
		{"skipped leave the denominator", withStatus(chain(4), StepCompleted, StepSkipped, StepRetrying), 33},
		{"cancelled before starting leave it", withStatus(chain(3), StepCompleted, StepCancelled, StepCancelled), 100},
		{"cancelled while running stays undone", started(withStatus(chain(3), StepCompleted, StepCancelled, StepCancelled), 1), 50},
		{"failed stays undone", withStatus(chain(2), StepCompleted, StepFailed), 50},
		{"an unused fallback leaves it", withStatus(fallback(), StepCompleted, StepCompleted), 100},
		{"a fallback standing in counts", withStatus(fallback(), StepFailed, StepCompleted, StepRunning), 33},
		{"everything skipped is done", withStatus(chain(2), StepSkipped, StepSkipped), 100},
		{"empty draft", Plan{Status: PlanDraft}, 0},
		{"empty completed", Plan{Status: PlanCompleted}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.plan.Progress().PercentOfWork())
		})
	}
}

// measured is chain(n) without estimates, the first steps finished with
// the given durations.
func measured(n int, durations ...time.Duration) Plan {
	p := chain(n)
	for i := range p.Steps {
		p.Steps[i].Estimated = 0
	}
	for i, d := range durations {
		p.Steps[i].Status = StepCompleted
		p.Steps[i].Result = &StepResult{Success: true, Duration: Duration(d)}
	}
	return p
}

func TestMeasuredRemaining(t *testing.T) {
	tests := []struct {
		name        string
		plan        Plan
		parallelism int
		want        time.Duration
	}{
		{"nothing finished", measured(3), 1, 0},
		{"mean times remaining", measured(4, time.Minute, 3*time.Minute), 1, 4 * time.Minute},
		{"divided by parallelism", measured(6, 2*time.Minute), 2, 5 * time.Minute},
		{"never wider than what remains", measured(3, 2*time.Minute, 2*time.Minute), 8, 2 * time.Minute},
		{"zero parallelism is one", measured(2, time.Minute), 0, time.Minute},
		{"nothing remains", measured(2, time.Minute, time.Minute), 1, 0},
		{"skipped steps do not remain", withStatus(measured(3, time.Minute), StepCompleted, StepSkipped), 1, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, Duration(tt.want), tt.plan.Progress().MeasuredRemaining(tt.parallelism))
		})
	}
}

func TestRemainingPrefersEstimates(t *testing.T) {
	p := withStatus(chain(3), StepCompleted)
	p.Steps[0].Result = &StepResult{Success: true, Duration: Duration(time.Hour)}
	p.Steps[1].Estimated, p.Steps[2].Estimated = Duration(time.Minute), Duration(time.Minute)
	assert.Equal(t, Duration(2*time.Minute), p.Progress().Remaining(1), "the model's estimates")
	p.Steps[1].Estimated, p.Steps[2].Estimated = 0, 0
	assert.Equal(t, Duration(2*time.Hour), p.Progress().Remaining(1), "measured without them")
}
