package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// checkBudget compares usage with the budget at a step boundary: stop
// halts execution, pause pauses the run (once, see resume).
func (r *run) checkBudget(ctx workflow.Context) {
	if r.halted() || r.st.BudgetWaived || r.exec.budgetPaused {
		return
	}
	kind, msg := r.overBudget()
	if kind == "" {
		return
	}
	if r.req.Budget.OnExceed == signals.BudgetPause {
		r.setPaused(ctx, true)
		r.exec.budgetPaused = true
		r.st.PauseReason = msg
		r.st.LastError = msg
		r.publish(ctx)
		r.notifyChange(ctx, activities.EventBudgetExceeded, msg+": paused", nil)
		r.notifyChange(ctx, activities.EventPaused, "paused: "+msg, nil)
		return
	}
	r.exec.stopReason = msg
	r.exec.budgetExceeded = kind
	r.cancelPending(ctx, msg, false)
	r.publish(ctx)
	r.notifyChange(ctx, activities.EventBudgetExceeded, msg+": stopped", nil)
}

// Budget kinds as Result.BudgetExceeded reports them.
const (
	budgetTokens = "tokens"
	budgetCost   = "cost"
)

// overBudget names the budget usage exceeds, with a message, or "".
func (r *run) overBudget() (string, string) {
	b := r.req.Budget
	if b.MaxTokens > 0 && r.st.Usage.TotalTokens > b.MaxTokens {
		return budgetTokens, fmt.Sprintf("budget exceeded: %d tokens used, limit %d", r.st.Usage.TotalTokens, b.MaxTokens)
	}
	if b.MaxCostUSD > 0 && r.st.Usage.CostUSD > b.MaxCostUSD {
		return budgetCost, fmt.Sprintf("budget exceeded: $%.4f spent, limit $%.4f", r.st.Usage.CostUSD, b.MaxCostUSD)
	}
	return "", ""
}

// llmBudget is called before every LLM call of a step (an llm step, each
// agent turn) and before each reflection, so that a plan overshoots its
// budget by at most one call (one per step running at once). Over the
// budget, stop halts execution as checkBudget does and returns the reason
// the step fails with; pause holds the call until a person resumes (which
// waives the budget) and returns "".
func (r *run) llmBudget(ctx workflow.Context) string {
	r.checkBudget(ctx)
	if r.exec.budgetPaused {
		if err := workflow.Await(ctx, func() bool { return !r.exec.budgetPaused }); err != nil {
			return "cancelled while paused over budget"
		}
		return ""
	}
	if r.exec.budgetExceeded == budgetTokens || r.exec.budgetExceeded == budgetCost {
		return r.exec.stopReason
	}
	return ""
}
