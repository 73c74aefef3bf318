package signals

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
)

func TestPriorityKeysOrderPlansAndPutStepsBelowTheirPlan(t *testing.T) {
	order := []plan.Priority{plan.PriorityCritical, plan.PriorityHigh, plan.PriorityMedium, plan.PriorityLow}
	for i, p := range order {
		assert.Equal(t, i+1, PriorityKey(p), p)
		assert.Equal(t, i+2, StepPriorityKey(p), "a %s plan's steps run one key below its own tasks", p)
		assert.LessOrEqual(t, StepPriorityKey(p), PriorityKeyLowest)
	}
	assert.Equal(t, PriorityKey(plan.PriorityMedium), PriorityKey(""), "unset is medium")
}

func TestTaskPriorityTakesTheTenantElseTheIdentity(t *testing.T) {
	p := TaskPriority(StartRequest{Goal: "g", Priority: plan.PriorityHigh, Tenant: "team-a"}, "123@host@")
	assert.Equal(t, 2, p.PriorityKey)
	assert.Equal(t, "team-a", p.FairnessKey)
	p = TaskPriority(StartRequest{Goal: "g"}, "123@host@")
	assert.Equal(t, 3, p.PriorityKey)
	assert.Equal(t, "123@host@", p.FairnessKey)
	p = TaskPriority(StartRequest{Goal: "g"}, strings.Repeat("é", 100))
	assert.LessOrEqual(t, len(p.FairnessKey), MaxNameBytes, "the server refuses a longer fairness key")
}
