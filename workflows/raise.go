package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// budget returns the budget in force: the one raise-budget set, else the
// request's.
func (r *run) budget() signals.Budget {
	if r.st.Budget != nil {
		return *r.st.Budget
	}
	return r.req.Budget
}

// validateRaise refuses a raise of a finished run and caps that do not go
// up (signals.Budget.Raise).
func (c *controls) validateRaise(req signals.RaiseBudgetRequest) error {
	if err := req.Validate(); err != nil {
		return reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	if c.finishing() {
		return reject(signals.ErrorTypeWrongPhase, "cannot raise the budget: the run is %s", c.r.st.Phase)
	}
	_, err := c.r.budget().Raise(req)
	return err
}

// raiseBudget sets the raised caps and resumes a run paused on its budget
// when its usage is within them now.
func (c *controls) raiseBudget(ctx workflow.Context, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error) {
	if err := c.validateRaise(req); err != nil {
		return signals.RaiseBudgetResponse{}, err
	}
	r, e := c.r, c.r.exec
	nb, _ := r.budget().Raise(req)
	r.st.Budget = &nb
	by := string(signals.Caller(req.By))
	msg := fmt.Sprintf("budget raised by %s to %s: %s", by, budgetText(nb), req.Reason)
	r.hooks.change(ctx, activities.EventPlanUpdated, msg, nil)
	resumed := false
	if kind, _ := overBudget(nb, r.st.Usage); e.budgetPaused && kind == "" {
		e.budgetPaused = false
		r.ctl.setPaused(ctx, false, msg)
		resumed = true
		r.hooks.change(ctx, activities.EventResumed, "resumed: "+msg, nil)
	}
	if r.st.Plan != nil {
		r.st.Plan.UpdatedAt = workflow.Now(ctx)
	}
	r.publish(ctx)
	return signals.RaiseBudgetResponse{Budget: nb, Resumed: resumed}, nil
}

// budgetText names a budget's caps.
func budgetText(b signals.Budget) string {
	return fmt.Sprintf("%d tokens, $%.4f (0 is no cap)", b.MaxTokens, b.MaxCostUSD)
}
