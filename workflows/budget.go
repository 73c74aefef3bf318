package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// checkBudget compares usage with the budget at a step boundary: stop
// halts execution, pause pauses the run (once, see resume).
func (e *executor) checkBudget(ctx workflow.Context) {
	r := e.r
	if e.halted() || r.st.BudgetWaived || e.budgetPaused {
		return
	}
	kind, msg := overBudget(r.budget(), r.st.Usage)
	if kind == "" {
		return
	}
	if r.req.Budget.OnExceed == signals.BudgetPause {
		r.ctl.setPaused(ctx, true, msg)
		e.budgetPaused = true
		r.noteError(msg)
		r.publish(ctx)
		r.hooks.change(ctx, activities.EventBudgetExceeded, msg+": paused", nil)
		r.hooks.change(ctx, activities.EventPaused, "paused: "+msg, nil)
		return
	}
	e.stopReason = msg
	e.budgetExceeded = kind
	e.cancelPending(ctx, msg, false)
	r.publish(ctx)
	r.hooks.change(ctx, activities.EventBudgetExceeded, msg+": stopped", nil)
}

// waiveBudget lifts a budget pause for the rest of the run: a person
// resumed the run (see resume).
func (e *executor) waiveBudget() {
	if e.budgetPaused {
		e.budgetPaused = false
		e.r.st.BudgetWaived = true
	}
}

// Budget kinds as Result.BudgetExceeded reports them.
const (
	budgetTokens = "tokens"
	budgetCost   = "cost"
)

// overBudget names the budget b that usage u exceeds, with a message, or
// "".
func overBudget(b signals.Budget, u plan.Usage) (string, string) {
	if b.MaxTokens > 0 && u.TotalTokens > b.MaxTokens {
		return budgetTokens, fmt.Sprintf("budget exceeded: %d tokens used, limit %d", u.TotalTokens, b.MaxTokens)
	}
	if b.MaxCostUSD > 0 && u.CostUSD > b.MaxCostUSD {
		return budgetCost, fmt.Sprintf("budget exceeded: $%.4f spent, limit $%.4f", u.CostUSD, b.MaxCostUSD)
	}
	return "", ""
}

// llmBudget is called before every LLM call of a step (an llm step, each
// agent turn) and before each reflection, so that a plan overshoots its
// budget by at most one call (one per step running at once). Over the
// budget, stop halts execution as checkBudget does and returns the reason
// the step fails with; pause holds the call until a person resumes (which
// waives the budget) and returns "".
func (e *executor) llmBudget(ctx workflow.Context) string {
	e.checkBudget(ctx)
	if e.budgetPaused {
		if err := workflow.Await(ctx, func() bool { return !e.budgetPaused }); err != nil {
			return "cancelled while paused over budget"
		}
		return ""
	}
	if e.budgetExceeded == budgetTokens || e.budgetExceeded == budgetCost {
		return e.stopReason
	}
	return ""
}
