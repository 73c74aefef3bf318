package phases

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestAgentIterationCaps(t *testing.T) {
	tests := []struct {
		name                     string
		iteration, inMax, capMax int
		wantMax, wantRemaining   int
		final                    bool
	}{
		{"input cap", 2, 5, 0, 5, 3, false},
		{"step cap is smaller", 2, 5, 3, 3, 1, false},
		{"no cap", 1, 0, 0, signals.DefaultMaxIterationsPerStep, signals.DefaultMaxIterationsPerStep - 1, false},
		{"last", 4, 4, 0, 4, 0, true},
		{"past the cap", 6, 4, 0, 6, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := AgentData(plan.StepContext{}, plan.AgentConfig{MaxIterations: tt.capMax}, "", tt.iteration, tt.inMax)
			assert.Equal(t, tt.wantMax, d.MaxIterations)
			assert.Equal(t, tt.wantRemaining, d.Remaining)
			assert.Equal(t, tt.final, d.Final)
		})
	}
}
