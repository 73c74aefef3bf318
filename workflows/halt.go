package workflows

import "github.com/planmode/planmode/plan"

// Budget kinds as Result.BudgetExceeded reports them: the kinds of the
// halts for a budget.
const (
	budgetTokens  = "tokens"
	budgetCost    = "cost"
	budgetHistory = "history"
)

// haltKind says why execution stopped starting steps. The budget kinds
// are the values of signals.Result.BudgetExceeded.
type haltKind string

const (
	// haltGoal: a reflection or a step's finish_plan declared the goal
	// achieved. The running steps finish and the run completes, whatever
	// failed on the way.
	haltGoal haltKind = "goal"
	// haltTokens and haltCost: the budget ran out with onExceed stop.
	haltTokens haltKind = budgetTokens
	haltCost   haltKind = budgetCost
	// haltHistory: the history budget ran out (see historyBudget).
	haltHistory haltKind = budgetHistory
	// haltApproval: nobody approved a call in time, and its onTimeout
	// fails the plan.
	haltApproval haltKind = "approval"
	// haltDeadline: the run's deadline passed.
	haltDeadline haltKind = "deadline"
)

// halt says why execution stopped starting steps: a kind and a reason.
// The zero halt stops nothing. Once execution halts, no step starts any
// more; the running ones finish, and the run ends when they have. A halt
// is not a pause: a budget pause (onExceed pause) holds the run until a
// person resumes it, and is the budget's (budget.held) and the controls'.
type halt struct {
	kind haltKind
	// reason says why, in the words the run fails with (for a stop) or
	// the pending steps are skipped with (for the goal).
	reason string
	// by declared the goal achieved.
	by plan.Actor
}

// set reports whether h stops steps starting.
func (h halt) set() bool { return h.kind != "" }

// fails reports whether h fails the run: any halt but the goal's.
func (h halt) fails() bool { return h.set() && h.kind != haltGoal }

// then is the halt once next comes after h: the first halt that fails
// the run stands, and outweighs the goal declared achieved before it.
func (h halt) then(next halt) halt {
	if h.fails() || h.kind == haltGoal && next.kind == haltGoal {
		return h
	}
	return next
}

// why says why no step starts any more.
func (h halt) why() string {
	if h.kind == haltGoal {
		return "the goal was declared achieved"
	}
	return h.reason
}

// budgetExceeded is the budget h says ran out (Result.BudgetExceeded):
// tokens, cost, history, or "".
func (h halt) budgetExceeded() string {
	switch h.kind {
	case haltTokens, haltCost, haltHistory:
		return string(h.kind)
	}
	return ""
}
