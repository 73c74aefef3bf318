package plan

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEditsPlaceStepsAndRecordHistory(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(p *Plan) error
		wantIDs []string
		wantUp  UpdateType
		wantID  string
	}{
		{"insert after", func(p *Plan) error { return p.InsertAfter("s1", llmStep("x", "s1"), change("more")) },
			[]string{"s1", "x", "s2", "s3"}, UpdateInsert, "x"},
		{"insert before", func(p *Plan) error { return p.InsertBefore("s1", llmStep("x"), change("first")) },
			[]string{"x", "s1", "s2", "s3"}, UpdateInsert, "x"},
		{"append", func(p *Plan) error { return p.Append(llmStep("x", "s3"), change("last")) },
			[]string{"s1", "s2", "s3", "x"}, UpdateAppend, "x"},
		{"append without id", func(p *Plan) error { return p.Append(llmStep(""), change("gen")) },
			[]string{"s1", "s2", "s3", "s4"}, UpdateAppend, "s4"},
		{"remove", func(p *Plan) error { return p.Remove("s2", change("drop")) },
			[]string{"s1", "s3"}, UpdateRemove, "s2"},
		{"update", func(p *Plan) error { return p.UpdateStep("s2", Step{Title: "New"}, change("rename")) },
			[]string{"s1", "s2", "s3"}, UpdateUpdate, "s2"},
		{"skip", func(p *Plan) error { return p.Skip([]string{"s3"}, change("not needed")) },
			[]string{"s1", "s2", "s3"}, UpdateSkip, "s3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := chain(3)
			require.NoError(t, tt.edit(&p))
			assert.Equal(t, tt.wantIDs, ids(p))
			for i, s := range p.Steps {
				assert.Equal(t, i+1, s.Number, "renumbered")
			}
			assert.Equal(t, 2, p.Version)
			assert.Equal(t, change("").At, p.UpdatedAt)
			require.Len(t, p.UpdateHistory, 1)
			u := p.UpdateHistory[0]
			assert.Equal(t, tt.wantUp, u.Type)
			assert.Equal(t, tt.wantID, u.StepID)
			assert.Equal(t, ActorUser, u.Actor)
			assert.Equal(t, 2, u.Version)
			assert.NotEmpty(t, u.Reason)
			assert.True(t, Validate(p, Limits{}).Valid)
		})
	}
}

func TestEditsRefuseAndLeavePlanUnchanged(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		edit func(p *Plan) error
		code EditCode
	}{
		{"insert after unknown", chain(2), func(p *Plan) error { return p.InsertAfter("nope", llmStep("x"), change("")) }, EditStepNotFound},
		{"insert duplicate id", chain(2), func(p *Plan) error { return p.Append(llmStep("s1"), change("")) }, EditDuplicateStepID},
		{"insert unknown dependency", chain(2), func(p *Plan) error { return p.Append(llmStep("x", "ghost"), change("")) }, EditInvalidPlan},
		{"insert without config", chain(2), func(p *Plan) error { return p.Append(Step{ID: "x", Action: ActionTool}, change("")) }, EditInvalidPlan},
		{"remove completed", withStatus(chain(2), StepCompleted), func(p *Plan) error { return p.Remove("s1", change("")) }, EditStepLocked},
		{"remove running", withStatus(chain(2), StepRunning), func(p *Plan) error { return p.Remove("s1", change("")) }, EditStepLocked},
		{"remove unknown", chain(2), func(p *Plan) error { return p.Remove("zz", change("")) }, EditStepNotFound},
		{"update retrying", withStatus(chain(2), StepRetrying), func(p *Plan) error { return p.UpdateStep("s1", Step{Title: "t"}, change("")) }, EditStepLocked},
		{"update empty patch", chain(2), func(p *Plan) error { return p.UpdateStep("s1", Step{}, change("")) }, EditInvalidEdit},
		{"update creates cycle", chain(2), func(p *Plan) error { return p.UpdateStep("s1", Step{DependsOn: []string{"s2"}}, change("")) }, EditInvalidPlan},
		{"skip failed", withStatus(chain(2), StepFailed), func(p *Plan) error { return p.Skip([]string{"s1"}, change("")) }, EditStepLocked},
		{"skip nothing", chain(2), func(p *Plan) error { return p.Skip(nil, change("")) }, EditInvalidEdit},
		{"remove after running", withStatus(chain(3), StepCompleted, StepCompleted, StepRunning), func(p *Plan) error { return p.RemoveAfter("s1", change("")) }, EditStepLocked},
		{"remove after nothing", chain(2), func(p *Plan) error { return p.RemoveAfter("s2", change("")) }, EditInvalidEdit},
		{"apply empty", chain(2), func(p *Plan) error { return p.Apply(nil, change("")) }, EditInvalidEdit},
		{"apply unknown op", chain(2), func(p *Plan) error { return p.Apply([]Edit{{Op: "explode", StepID: "s1"}}, change("")) }, EditInvalidEdit},
		{"replan would empty", chain(2), func(p *Plan) error { return p.Replan(nil, change("")) }, EditInvalidPlan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.plan
			before := p.Clone()
			err := tt.edit(&p)
			var ee *EditError
			require.True(t, errors.As(err, &ee), "want *EditError, got %v", err)
			assert.Equal(t, tt.code, ee.Code)
			assert.NotEmpty(t, ee.Error())
			assert.Equal(t, before, p, "plan unchanged")
		})
	}
}

func TestUpdateHistoryKeepsTheNewestEntries(t *testing.T) {
	p := chain(3)
	total := MaxUpdateHistory + 7
	for i := 0; i < total; i++ {
		require.NoError(t, p.UpdateStep("s3", Step{Title: fmt.Sprintf("Title %d", i)}, change("rename")))
	}
	require.Len(t, p.UpdateHistory, MaxUpdateHistory)
	assert.Equal(t, 7, p.UpdateHistoryDropped)
	assert.Equal(t, total+1, p.Version, "every edit still bumps the version")
	assert.Equal(t, total+1, p.UpdateHistory[len(p.UpdateHistory)-1].Version, "the newest entry is kept")
	assert.Equal(t, 9, p.UpdateHistory[0].Version, "the oldest seven went")
}
