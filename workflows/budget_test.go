package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// costlyTurns makes every agent turn cost 100 tokens and ask for a tool,
// until turn answerAt, which answers.
func costlyTurns(h *harness, answerAt int) {
	h.f.agentTurn = func(in activities.AgentTurnInput) (activities.AgentTurnOutput, error) {
		out := activities.AgentTurnOutput{Usage: plan.Usage{TotalTokens: 100}}
		if in.Iteration >= answerAt {
			out.Content = "answer"
			return out, nil
		}
		out.ToolCalls = []activities.ToolCall{{ID: "c", Name: "read_file", Arguments: `{"path":"a.go"}`}}
		return out, nil
	}
}

// TestBudgetStopsInsideAnAgentLoop: clarify costs 5 tokens,
// each turn 100, the budget is 250. The third turn crosses it; the
// fourth never starts, so the plan overshoots by one call, not by the
// rest of the loop.
func TestBudgetStopsInsideAnAgentLoop(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 10), llmStep("s2", "a1"))
	costlyTurns(h, 10)
	req := autoReq()
	req.Budget = signals.Budget{MaxTokens: 250, OnExceed: signals.BudgetStop}
	res := h.run(req)

	require.Equal(t, signals.StatusFailed, res.Status)
	assert.Equal(t, 3, h.f.count("AgentTurn"), "no turn starts over the budget")
	assert.Equal(t, budgetTokens, res.BudgetExceeded)
	assert.Equal(t, "budget exceeded: 305 tokens used, limit 250", res.Error)
	a1 := res.Plan.StepByID("a1")
	assert.Equal(t, plan.StepFailed, a1.Status)
	assert.Contains(t, a1.Result.Error, "budget exceeded")
	assert.Equal(t, plan.StepCancelled, res.Plan.StepByID("s2").Status)
	assert.Zero(t, h.f.count("Reflect"), "no reflection over the budget")
	assert.Equal(t, 1, h.f.count("Summarize"), "the partial summary is still written")
}

// TestBudgetPausesInsideAnAgentLoop: with onExceed pause the loop waits
// before its fourth turn until a person resumes, then finishes.
func TestBudgetPausesInsideAnAgentLoop(t *testing.T) {
	h := newHarness(t)
	h.f.onePlan(agentStep("a1", 10))
	costlyTurns(h, 5)
	req := autoReq()
	req.Budget = signals.Budget{MaxTokens: 250, OnExceed: signals.BudgetPause}
	h.at(time.Hour, func() {
		p := query(h, signals.ProgressQuery)
		assert.True(t, p.Paused, "paused over budget")
		assert.Equal(t, 3, h.f.count("AgentTurn"), "the loop waits")
		signal(h, signals.Resume, signals.ControlRequest{Reason: "go on"})
	})
	res := h.run(req)

	require.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, 5, h.f.count("AgentTurn"))
	assert.Equal(t, plan.StepCompleted, res.Plan.StepByID("a1").Status)
}
