package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// budget keeps the run's usage within its budget for the executor: the
// budget in force and whether a person waived it (Budget and BudgetWaived
// of the executor's state), and whether an overrun holds the run paused
// (held). Over the budget, onExceed stop halts execution and onExceed
// pause pauses the run (the controls' pause) until a person resumes it,
// which waives the budget, or raises it (raise-budget).
type budget struct {
	st *signals.ExecutionState
	// req is the request's budget, in force until a raise.
	req signals.Budget
	// held is set while a budget overrun holds the run paused.
	held bool
	// told is the usage budget-used last told, so that it tells each
	// change once.
	told  plan.Usage
	x     budgetPlan
	run   budgetRun
	pause pauser
	log   eventLog
}

// budgetPlan is what the budget asks of the executor: why execution
// stopped, and to halt it.
type budgetPlan interface {
	stopped() halt
	halt(ctx workflow.Context, h halt)
}

// budgetRun is what the budget asks of the run: to report, the usage so
// far and the phase.
type budgetRun interface {
	reporter
	usage() plan.Usage
	phase() plan.Phase
}

// inForce returns the budget in force: the one raise-budget set, else the
// request's.
func (b *budget) inForce() signals.Budget {
	if b.st.Budget != nil {
		return *b.st.Budget
	}
	return b.req
}

// check compares usage with the budget at a step boundary and before an
// LLM call: stop halts execution, pause pauses the run (once, see waive).
func (b *budget) check(ctx workflow.Context) {
	b.tellUsed(ctx)
	if b.x.stopped().set() || b.st.BudgetWaived || b.held {
		return
	}
	kind, msg := overBudget(b.inForce(), b.run.usage())
	if kind == "" {
		return
	}
	if b.req.OnExceed == signals.BudgetPause {
		b.pause.setPaused(ctx, true, msg)
		b.held = true
		b.run.noteError(msg)
		b.run.publish(ctx)
		b.log.record(ctx, signals.EventBudgetExceeded, nil, msg+": paused", nil)
		b.log.record(ctx, signals.EventPaused, nil, "paused: "+msg, byReason{By: string(plan.ActorSystem), Reason: msg})
		return
	}
	b.x.halt(ctx, halt{kind: haltKind(kind), reason: msg})
	b.log.record(ctx, signals.EventBudgetExceeded, nil, msg+": stopped", nil)
}

// waive lifts a budget pause for the rest of the run: a person resumed
// the run (controls.resume).
func (b *budget) waive() {
	if b.held {
		b.held = false
		b.st.BudgetWaived = true
	}
}

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

// beforeLLM is called before every LLM call of a step (an llm step, each
// agent turn) and before each reflection, so that a plan overshoots its
// budget by at most one call (one per step running at once). Over the
// budget, stop halts execution as check does and returns the reason the
// step fails with; pause holds the call until a person resumes (which
// waives the budget) and returns "".
func (b *budget) beforeLLM(ctx workflow.Context) string {
	b.check(ctx)
	if b.held {
		if err := workflow.Await(ctx, func() bool { return !b.held }); err != nil {
			return "cancelled while paused over budget"
		}
		return ""
	}
	if h := b.x.stopped(); h.kind == haltTokens || h.kind == haltCost {
		return h.reason
	}
	return ""
}

// tellUsed records budget-used when the run has a budget and its usage
// changed since the log last told it.
func (b *budget) tellUsed(ctx workflow.Context) {
	caps, used := b.inForce(), b.run.usage()
	if (caps.MaxTokens == 0 && caps.MaxCostUSD == 0) || used == b.told {
		return
	}
	b.told = used
	b.log.record(ctx, signals.EventBudgetUsed, nil, fmt.Sprintf("used %d tokens, $%.4f of %s", used.TotalTokens, used.CostUSD, budgetText(caps)),
		budgetUsed{Tokens: used.TotalTokens, CostUSD: used.CostUSD, MaxTokens: caps.MaxTokens, MaxCostUSD: caps.MaxCostUSD})
}

// validateRaise refuses a raise of a finished run and caps that do not go
// up (signals.Budget.Raise).
func (b *budget) validateRaise(req signals.RaiseBudgetRequest) error {
	if err := req.Validate(); err != nil {
		return reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	if ph := b.run.phase(); finishing(ph) {
		return reject(signals.ErrorTypeWrongPhase, "cannot raise the budget: the run is %s", ph)
	}
	_, err := b.inForce().Raise(req)
	return err
}

// raise sets the raised caps and resumes a run paused on its budget when
// its usage is within them now.
func (b *budget) raise(ctx workflow.Context, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error) {
	if err := b.validateRaise(req); err != nil {
		return signals.RaiseBudgetResponse{}, err
	}
	nb, _ := b.inForce().Raise(req)
	b.st.Budget = &nb
	by := string(signals.Caller(req.By))
	msg := fmt.Sprintf("budget raised by %s to %s: %s", by, budgetText(nb), req.Reason)
	b.log.record(ctx, signals.EventBudgetRaised, nil, msg, budgetRaised{Budget: nb, By: by, Reason: req.Reason})
	resumed := false
	if kind, _ := overBudget(nb, b.run.usage()); b.held && kind == "" {
		b.held = false
		b.pause.setPaused(ctx, false, msg)
		resumed = true
		b.log.record(ctx, signals.EventResumed, nil, "resumed: "+msg, byReason{By: by, Reason: msg})
	}
	if b.st.Plan != nil {
		b.st.Plan.UpdatedAt = workflow.Now(ctx)
	}
	b.run.publish(ctx)
	return signals.RaiseBudgetResponse{Budget: nb, Resumed: resumed}, nil
}

// budgetText names a budget's caps.
func budgetText(b signals.Budget) string {
	return fmt.Sprintf("%d tokens, $%.4f (0 is no cap)", b.MaxTokens, b.MaxCostUSD)
}
