package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func forkPlan() *Plan {
	at := func(min int) *time.Time { t := time.Date(2026, 1, 1, 0, min, 0, 0, time.UTC); return &t }
	return &Plan{Steps: []Step{
		{ID: "a", Status: StepCompleted, EndedAt: at(1), Result: &StepResult{Success: true, Manifest: "m1"}},
		{ID: "b", Status: StepCompleted, EndedAt: at(2), DependsOn: []string{"a"}, Result: &StepResult{Success: true, Manifest: "m2"}},
		{ID: "c", Status: StepCompleted, EndedAt: at(3), DependsOn: []string{"a", "b"}, Result: &StepResult{Success: true, Manifest: "m3"}},
		{ID: "d", Status: StepSkipped, EndedAt: at(1)},
		{ID: "e", Status: StepFailed, EndedAt: at(4), DependsOn: []string{"c", "d"}, Result: &StepResult{Error: "boom"}},
		{ID: "f", Status: StepPending, DependsOn: []string{"e"}},
	}}
}

func TestForkStepsGoesOnWithWhatWasNotDoneWhenTheStepEnded(t *testing.T) {
	steps, manifest, err := ForkSteps(forkPlan(), "b")
	require.NoError(t, err)
	assert.Equal(t, "m2", manifest)
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.ID)
		assert.Equal(t, StepPending, s.Status, s.ID)
		assert.Nil(t, s.Result, "a forked step starts without its parent's result")
	}
	assert.Equal(t, []string{"c", "e", "f"}, ids, "c completed after b ended: the fork runs it again on b's files")
	assert.Empty(t, steps[0].DependsOn, "dependencies on steps done by then are held by the fork's files")
	assert.Equal(t, []string{"c"}, steps[1].DependsOn, "d was skipped before b ended")
	assert.Equal(t, []string{"e"}, steps[2].DependsOn)
}

func TestForkStepsRunsAgainAStepThatEndedAtTheSameMoment(t *testing.T) {
	p := forkPlan()
	p.Steps[2].EndedAt = p.Steps[1].EndedAt // c settled in the same workflow task as b
	steps, _, err := ForkSteps(p, "b")
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	assert.Equal(t, "c", steps[0].ID, "c's changes may have merged after b's: it runs again")
}

func TestForkStepsRefusesAStepWithoutFiles(t *testing.T) {
	for _, id := range []string{"d", "e", "f", "nope"} {
		_, _, err := ForkSteps(forkPlan(), id)
		assert.Error(t, err, id)
	}
	_, _, err := ForkSteps(nil, "a")
	assert.Error(t, err)
}
