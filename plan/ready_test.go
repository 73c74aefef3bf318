package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReady(t *testing.T) {
	tests := []struct {
		name   string
		plan   func() Plan
		expect []string
	}{
		{"only the first of a chain", func() Plan { return chain(3) }, []string{"s1"}},
		{"after a completed step", func() Plan { return withStatus(chain(3), StepCompleted) }, []string{"s2"}},
		{"after a skipped step", func() Plan { return withStatus(chain(3), StepSkipped) }, []string{"s2"}},
		{"not after a running step", func() Plan { return withStatus(chain(3), StepRunning) }, nil},
		{"not after a failed step", func() Plan { return withStatus(chain(3), StepFailed) }, nil},
		{"independent steps together", func() Plan {
			p := chain(3)
			p.Steps[1].DependsOn, p.Steps[2].DependsOn = nil, nil
			return p
		}, []string{"s1", "s2", "s3"}},
		{"fallback-only step excluded", func() Plan {
			p := chain(3)
			p.Steps[2].DependsOn = nil
			p.Steps[0].FallbackStepID = "s3"
			return p
		}, []string{"s1"}},
		{"unknown dependency never ready", func() Plan {
			p := chain(2)
			p.Steps[1].DependsOn = []string{"ghost"}
			return p
		}, []string{"s1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.plan()
			assert.Equal(t, tt.expect, p.Ready())
		})
	}
}

func TestBlockedFollowsChains(t *testing.T) {
	p := withStatus(chain(4), StepCompleted, StepFailed)
	assert.Equal(t, []string{"s3", "s4"}, p.Blocked())
	p = withStatus(chain(3), StepCancelled)
	assert.Equal(t, []string{"s2", "s3"}, p.Blocked())
	p = withStatus(chain(3), StepCompleted)
	assert.Empty(t, p.Blocked())
}

func TestFallbacks(t *testing.T) {
	p := chain(3)
	p.Steps[2].DependsOn = nil
	p.Steps[0].FallbackStepID = "s3"
	assert.True(t, p.IsFallbackOnly("s3"))
	assert.False(t, p.IsFallbackOnly("s1"))
	assert.Empty(t, p.UnusedFallbacks(), "s1 may still fail")
	p.Steps[0].Status = StepFailed
	assert.Empty(t, p.UnusedFallbacks(), "s1 failed: s3 runs in its place")
	p.Steps[0].Status = StepCompleted
	assert.Equal(t, []string{"s3"}, p.UnusedFallbacks())
}
