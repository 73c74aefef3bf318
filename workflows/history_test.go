package workflows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestHistoryReachesClarifyAndPlanning(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.History = []plan.Message{
		{Role: plan.MessageUser, Content: "Our login has no tokens yet."},
		{Role: plan.MessageAssistant, Content: "Then JWT is the next step."},
	}
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.clarifyIn, 1)
	require.NotEmpty(t, h.f.optionsIn)
	assert.Equal(t, req.History, h.f.clarifyIn[0].Task.History)
	assert.Equal(t, req.History, h.f.optionsIn[0].Task.History)
}

func TestInvalidHistoryFailsTheStart(t *testing.T) {
	h := newHarness(t)
	h.register()
	req := autoReq()
	req.History = []plan.Message{{Role: "bot", Content: "hi"}}
	h.env.ExecuteWorkflow(PlanMode, req)

	require.True(t, h.env.IsWorkflowCompleted())
	err := h.env.GetWorkflowError()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `history[0].role "bot"`)
	assert.Zero(t, h.f.count("Clarify"), "nothing runs for an invalid request")
}
