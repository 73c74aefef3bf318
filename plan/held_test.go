package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// diamond is s1 → (s2, s3) → s4, with s5 on its own.
func diamond() Plan {
	p := chain(5)
	p.Steps[2].DependsOn = []string{"s1"}
	p.Steps[3].DependsOn = []string{"s2", "s3"}
	p.Steps[4].DependsOn = nil
	return p
}

func TestHeld(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		ids  []string
		want []string
	}{
		{"nothing asked", chain(3), nil, nil},
		{"a step and its chain", chain(4), []string{"s2"}, []string{"s2", "s3", "s4"}},
		{"the last step alone", chain(4), []string{"s4"}, []string{"s4"}},
		{"a branch holds the join, not the sibling", diamond(), []string{"s2"}, []string{"s2", "s4"}},
		{"independent step stays free", diamond(), []string{"s1"}, []string{"s1", "s2", "s3", "s4"}},
		{"several ids, plan order", diamond(), []string{"s5", "s3"}, []string{"s3", "s4", "s5"}},
		{"only pending steps are held", withStatus(chain(3), StepCompleted, StepRunning), []string{"s1", "s2"}, []string{"s3"}},
		{"unknown ids hold nothing", chain(2), []string{"ghost"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.plan.Held(tt.ids))
		})
	}
}

func TestReadyExcept(t *testing.T) {
	p := withStatus(diamond(), StepCompleted)
	assert.Equal(t, []string{"s2", "s3", "s5"}, p.Ready())
	assert.Equal(t, []string{"s3", "s5"}, p.ReadyExcept(p.Held([]string{"s2"})))
	assert.Equal(t, p.Ready(), p.ReadyExcept(nil))
}
