package plan

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRemoveRewiresDependentsAndClearsFallbacks(t *testing.T) {
	p := chain(3)
	p.Steps[0].FallbackStepID = "s2"
	require.NoError(t, p.Remove("s2", change("redundant")))
	assert.Equal(t, []string{"s1", "s3"}, ids(p))
	assert.Equal(t, []string{"s1"}, p.StepByID("s3").DependsOn, "s3 inherits s2's dependency")
	assert.Empty(t, p.StepByID("s1").FallbackStepID)
	assert.Equal(t, 2, p.StepByID("s3").Number)
}

func TestRemoveAfterKeepsDoneSteps(t *testing.T) {
	p := withStatus(chain(5), StepCompleted, StepCompleted, StepPending, StepSkipped, StepPending)
	require.NoError(t, p.RemoveAfter("s2", change("enough")))
	assert.Equal(t, []string{"s1", "s2", "s4"}, ids(p))
	require.Len(t, p.UpdateHistory, 2)
	assert.Equal(t, "s3", p.UpdateHistory[0].StepID)
	assert.Equal(t, "s5", p.UpdateHistory[1].StepID)
	assert.Equal(t, 2, p.UpdateHistory[1].Version, "one version for the call")
	assert.Equal(t, 2, p.Version)
}

func TestUpdateStepAppliesOnlySetFields(t *testing.T) {
	p := chain(3)
	temp := 0.2
	patch := Step{
		ID: "ignored", Status: StepCompleted, Result: &StepResult{Success: true},
		Description: "new desc", Kind: KindTesting, Action: ActionTool,
		Config:    StepConfig{Tool: &ToolConfig{Name: ToolRunTests}, LLM: &LLMConfig{Prompt: "p", Temperature: &temp}},
		DependsOn: []string{}, RequiredTools: []string{ToolRunTests}, MaxRetries: 3, RetryDelay: Duration(5e9),
		Skippable: true, SkipCondition: "s1.failed", FallbackStepID: "s1", Estimated: Duration(6e10),
	}
	require.NoError(t, p.UpdateStep("s3", patch, change("retool")))
	s := p.StepByID("s3")
	require.NotNil(t, s)
	assert.Equal(t, "Step s3", s.Title, "title kept")
	assert.Equal(t, StepPending, s.Status, "status never patched")
	assert.Nil(t, s.Result, "result never patched")
	assert.Equal(t, ActionTool, s.Action)
	assert.Equal(t, ToolRunTests, s.Config.Tool.Name)
	assert.Empty(t, s.DependsOn, "empty slice clears")
	assert.Equal(t, 3, s.MaxRetries)
	assert.True(t, s.Skippable)
	assert.Equal(t, "s1.failed", s.SkipCondition)
	assert.Equal(t, "s1", s.FallbackStepID)
	temp = 0.9
	assert.InDelta(t, 0.2, *s.Config.LLM.Temperature, 1e-9, "patch is copied")
}

func TestApplyIsAllOrNothing(t *testing.T) {
	p := chain(3)
	before := p.Clone()
	err := p.Apply([]Edit{
		{Op: OpAppend, Step: ptr(llmStep("x", "s3"))},
		{Op: OpRemove, StepID: "ghost"},
	}, change("batch"))
	var ee *EditError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, EditStepNotFound, ee.Code)
	assert.Contains(t, err.Error(), "edit 2 (remove)")
	assert.Equal(t, before, p)
}

func TestApplyBumpsVersionOnceAndValidatesAtTheEnd(t *testing.T) {
	p := chain(2)
	err := p.Apply([]Edit{
		{Op: OpInsertAfter, StepID: "s1", Step: ptr(llmStep("b", "a"))}, // a comes next
		{Op: OpInsertBefore, StepID: "b", Step: ptr(llmStep("a", "s1"))},
		{Op: OpUpdate, StepID: "s2", Step: &Step{DependsOn: []string{"b"}}},
		{Op: OpRemoveAfter, StepID: "s2"},
	}, change("batch"))
	// removeAfter s2 has nothing to remove: the whole batch is refused.
	var ee *EditError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, EditInvalidEdit, ee.Code)

	require.NoError(t, p.Apply([]Edit{
		{Op: OpInsertAfter, StepID: "s1", Step: ptr(llmStep("b", "a"))},
		{Op: OpInsertBefore, StepID: "b", Step: ptr(llmStep("a", "s1"))},
		{Op: OpUpdate, StepID: "s2", Step: &Step{DependsOn: []string{"b"}}},
	}, change("batch")))
	assert.Equal(t, []string{"s1", "a", "b", "s2"}, ids(p))
	assert.Equal(t, 2, p.Version)
	require.Len(t, p.UpdateHistory, 3)
	for _, u := range p.UpdateHistory {
		assert.Equal(t, 2, u.Version)
	}
	assert.Equal(t, []string{"s1"}, p.Ready())
}

func TestEditsRefuseNewCyclesButRepairOldProblems(t *testing.T) {
	p := chain(3)
	p.Steps[1].DependsOn = []string{"ghost"} // already invalid
	require.NoError(t, p.UpdateStep("s3", Step{Title: "renamed"}, change("")), "old error does not block edits")
	require.NoError(t, p.UpdateStep("s2", Step{DependsOn: []string{"s1"}}, change("repair")))
	assert.True(t, Validate(p, Limits{}).Valid)
	err := p.UpdateStep("s1", Step{DependsOn: []string{"s3"}}, change(""))
	var ee *EditError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, EditInvalidPlan, ee.Code)
	require.NotEmpty(t, ee.Issues)
	assert.Equal(t, CodeCircularDependency, ee.Issues[0].Code)
}

func TestReplanKeepsStartedStepsAndReplacesPending(t *testing.T) {
	p := withStatus(chain(4), StepCompleted, StepRunning)
	p.Steps[1].FallbackStepID = "s4"
	require.NoError(t, p.Replan([]Step{llmStep("n1", "s2"), llmStep("", "n1")}, change("new approach")))
	assert.Equal(t, []string{"s1", "s2", "n1", "s5"}, ids(p))
	assert.Empty(t, p.StepByID("s2").FallbackStepID, "fallback to a replaced step is cleared")
	assert.Equal(t, StepPending, p.StepByID("s5").Status)
	assert.Equal(t, UpdateReplan, p.UpdateHistory[0].Type)
	assert.Equal(t, 6, p.NextStepSeq)
}

func TestReplanRefusesDuplicateOfKeptStep(t *testing.T) {
	p := withStatus(chain(2), StepCompleted)
	err := p.Replan([]Step{llmStep("s1")}, change(""))
	var ee *EditError
	require.True(t, errors.As(err, &ee))
	assert.Equal(t, EditDuplicateStepID, ee.Code)
}

func TestSkipMarksPendingSteps(t *testing.T) {
	p := chain(3)
	require.NoError(t, p.Skip([]string{"s2", "s3", "s2"}, change("goal met")))
	for _, id := range []string{"s2", "s3"} {
		s := p.StepByID(id)
		assert.Equal(t, StepSkipped, s.Status)
		assert.Equal(t, "goal met", s.Note)
		require.NotNil(t, s.EndedAt)
		assert.Equal(t, change("").At, *s.EndedAt)
	}
	assert.Len(t, p.UpdateHistory, 2)
	assert.Equal(t, StepPending, p.StepByID("s1").Status)
}

func TestNewIDsNeverReuseRemovedOnes(t *testing.T) {
	p := chain(2)
	p.NextStepSeq = 0
	require.NoError(t, p.Append(llmStep(""), change("")))
	assert.Equal(t, "s3", p.Steps[2].ID, "skips ids in use")
	require.NoError(t, p.Remove("s3", change("")))
	p.NextStepSeq = 1
	require.NoError(t, p.Append(llmStep(""), change("")))
	assert.Equal(t, "s4", p.Steps[2].ID, "s3 is in the history")
	assert.Equal(t, 5, p.NextStepSeq)
}

func TestInsertBeforeDoneStepAndNewStepIsPending(t *testing.T) {
	p := withStatus(chain(2), StepCompleted)
	s := llmStep("x")
	s.Status = StepFailed
	s.Result = &StepResult{Output: "stale"}
	require.NoError(t, p.InsertBefore("s1", s, Change{At: t0}))
	assert.Equal(t, []string{"x", "s1", "s2"}, ids(p))
	assert.Equal(t, StepPending, p.Steps[0].Status)
	assert.Nil(t, p.Steps[0].Result)
	assert.Equal(t, ActorSystem, p.UpdateHistory[0].Actor, "default actor")
}

func ptr[T any](v T) *T { return &v }

func TestSkipConditionsFollowRemovals(t *testing.T) {
	p := withStatus(chain(4), StepCompleted)
	p.Steps[0].SkipCondition = "s3.completed"
	p.Steps[3].SkipCondition = "s2.failed"
	err := p.Remove("s2", change(""))
	var ee *EditError
	require.ErrorAs(t, err, &ee, "a pending step's condition still names s2")
	assert.Equal(t, CodeInvalidCondition, ee.Issues[0].Code)

	require.NoError(t, p.Replan([]Step{llmStep("n1", "s1")}, change("")))
	assert.Empty(t, p.StepByID("s1").SkipCondition, "a done step's stale condition is dropped")
	assert.Equal(t, []string{"s1", "n1"}, ids(p))

	q := withStatus(chain(3), StepCompleted)
	q.Steps[0].SkipCondition = "s2.completed"
	require.NoError(t, q.Remove("s2", change("")))
	assert.Empty(t, q.StepByID("s1").SkipCondition)

	steps, err := ConditionSteps("s1.completed && (s2.failed || s1.skipped)")
	require.NoError(t, err)
	assert.Equal(t, []string{"s1", "s2"}, steps)
}
