package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// Tool names: one per operation of the contract.
const (
	ToolStart       = "plan_start"
	ToolStatus      = "plan_status"
	ToolOptions     = "plan_options"
	ToolSelect      = "plan_select"
	ToolRefine      = "plan_refine"
	ToolAnswer      = "plan_answer"
	ToolConfirmSkip = "plan_confirm_skip"
	ToolApprove     = "plan_approve"
	ToolDeny        = "plan_deny"
	ToolRaiseBudget = "plan_raise_budget"
	ToolEdit        = "plan_edit"
	ToolControl     = "plan_control"
	ToolResult      = "plan_result"
	ToolList        = "plan_list"
	ToolApprovals   = "plan_approvals"
	ToolRollback    = "plan_rollback"
	ToolFork        = "plan_fork"
)

// addTools registers every tool on srv.
func (s *server) addTools(srv *mcp.Server) {
	templates := append(plan.TemplateNames(), plan.TemplateAuto)
	add(s, srv, tool{name: ToolStart, title: "Start a plan",
		description: "Start a plan for a goal. Only goal is required; template names a built-in plan (" + strings.Join(templates, ", ") +
			": the goal chooses one) or, empty, has the model plan; selection.mode \"auto\" takes the recommended option at once, " +
			"\"manual\" (the default) waits for plan_select. Answers the plan's id: follow it with plan_status."},
		fixes(drop("checkpoint"), requireOnly(), enum("template", append(templates, "")...)), s.start)
	add(s, srv, tool{name: ToolStatus, title: "How a plan stands", readOnly: true,
		description: "How the plan stands (phase, progress, tokens, cost; from Temporal when the plan cannot answer) and what it waits for: " +
			"a selection, answers, a skip confirmation, tool-call approvals with their requestId, argsDigest and planVersion."},
		nil, s.status)
	add(s, srv, tool{name: ToolOptions, title: "A plan's options", readOnly: true,
		description: "The plan's options with their ranking, comparison and the recommended one."},
		nil, func(ctx context.Context, in planRef) (signals.OptionsView, error) {
			return query(ctx, s, in.PlanID, s.plans.Options)
		})
	add(s, srv, tool{name: ToolSelect, title: "Select an option", idempotent: true,
		description: signals.SelectOption.Description},
		nil, func(ctx context.Context, in selectInput) (signals.SelectOptionResponse, error) {
			in.By = s.caller.Identity
			return s.plans.Select(ctx, in.PlanID, in.SelectOptionRequest)
		})
	add(s, srv, tool{name: ToolRefine, title: "Refine the options", description: signals.RefinePlan.Description},
		nil, func(ctx context.Context, in refineInput) (signals.OptionsView, error) {
			in.By = s.caller.Identity
			return s.plans.Refine(ctx, in.PlanID, in.RefinePlanRequest)
		})
	add(s, srv, tool{name: ToolAnswer, title: "Answer the questions", description: signals.AnswerClarification.Description},
		nil, func(ctx context.Context, in answerInput) (signals.ClarificationResponse, error) {
			in.By = s.caller.Identity
			return s.plans.Answer(ctx, in.PlanID, in.AnswerClarificationRequest)
		})
	add(s, srv, tool{name: ToolConfirmSkip, title: "Confirm or refuse a skip", idempotent: true,
		description: signals.ConfirmSkip.Description},
		nil, func(ctx context.Context, in confirmSkipInput) (signals.ConfirmSkipResponse, error) {
			in.By = s.caller.Identity
			return s.plans.ConfirmSkip(ctx, in.PlanID, in.ConfirmSkipRequest)
		})
	add(s, srv, tool{name: ToolApprove, title: "Approve a gated tool call", description: signals.ApproveToolCall.Description},
		nil, func(ctx context.Context, in approveInput) (signals.ApprovalDecision, error) {
			in.By = s.caller.Identity
			return s.plans.Approve(ctx, in.PlanID, in.ApproveToolCallRequest)
		})
	add(s, srv, tool{name: ToolDeny, title: "Deny a gated tool call", description: signals.DenyToolCall.Description},
		nil, func(ctx context.Context, in denyInput) (signals.ApprovalDecision, error) {
			in.By = s.caller.Identity
			return s.plans.Deny(ctx, in.PlanID, in.DenyToolCallRequest)
		})
	add(s, srv, tool{name: ToolRaiseBudget, title: "Raise the budget", description: signals.RaiseBudget.Description},
		nil, func(ctx context.Context, in raiseBudgetInput) (signals.RaiseBudgetResponse, error) {
			in.By = s.caller.Identity
			return s.plans.RaiseBudget(ctx, in.PlanID, in.RaiseBudgetRequest)
		})
	add(s, srv, tool{name: ToolEdit, title: "Edit the plan", destructive: true, description: signals.EditPlan.Description +
		" The edits apply all or nothing."},
		nil, func(ctx context.Context, in editInput) (signals.EditPlanResponse, error) {
			in.By = s.caller.Identity
			return s.plans.Edit(ctx, in.PlanID, in.EditPlanRequest)
		})
	add(s, srv, tool{name: ToolControl, title: "Pause, resume or cancel", destructive: true,
		description: "pause stops the plan at its next step boundary, resume goes on, cancel stops its work for good and " +
			"writes a partial summary (read it with plan_result)."},
		enum("action", actionPause, actionResume, actionCancel), s.control)
	add(s, srv, tool{name: ToolResult, title: "A plan's result", readOnly: true,
		description: "The plan's result once it ended (completed, failed, cancelled or answered): summary, plan, metrics, " +
			"tokens and cost. An open plan is refused unless wait is given and it ends within it."},
		nil, s.result)
	add(s, srv, tool{name: ToolList, title: "List plans", readOnly: true,
		description: "The plans on this server's task queue, newest first, optionally by phase or by what they wait for."},
		fixes(enum("phase", phases...), enum("awaiting", awaitings...)), s.list)
	add(s, srv, tool{name: ToolApprovals, title: "Gated tool calls waiting", readOnly: true,
		description: "The gated tool calls waiting for plan_approve or plan_deny, across the open plans or of one plan."},
		nil, s.approvals)
	add(s, srv, tool{name: ToolRollback, title: "Roll the files back", destructive: true,
		description: "Restore the plan's workspace files as they were before execution, or with stepId as they were after that " +
			"step: while the plan runs, and after it ended (then refused, naming them, when files changed since, unless force)."},
		nil, s.rollback)
	add(s, srv, tool{name: ToolFork, title: "Fork a plan",
		description: "Start a new plan from another plan's files as they were after one of its steps: with no goal it goes on " +
			"with the steps not done after that one, with a goal it plans afresh on those files. The plan forked from is only read."},
		nil, s.fork)
}

// phases and awaitings are the values plan_list filters on.
var (
	phases = []plan.Phase{plan.PhaseAwaitingWorkspace, plan.PhaseClarifying, plan.PhasePlanning,
		plan.PhaseAwaitingSelection, plan.PhaseExecuting, plan.PhaseReflecting, plan.PhaseSummarizing,
		plan.PhaseCompleted, plan.PhaseFailed, plan.PhaseCancelled}
	awaitings = []signals.Awaiting{signals.AwaitingNone, signals.AwaitingWorkspace, signals.AwaitingSelection,
		signals.AwaitingClarification, signals.AwaitingConfirmation, signals.AwaitingApproval, signals.AwaitingResume}
)

// start starts a plan for the request. A caller limited to tenants starts
// plans of one of them only: the first of its tenants when the request
// names none. A fork must be of a plan the caller sees.
func (s *server) start(ctx context.Context, in startInput) (startOutput, error) {
	req := in.StartRequest
	if s.caller.limited() {
		if req.Tenant == "" {
			req.Tenant = s.caller.Tenants[0]
		}
		if !s.caller.mayUse(req.Tenant) {
			return startOutput{}, fmt.Errorf("%w: tenant %q: this caller starts plans of %v only",
				signals.ErrRejected, req.Tenant, s.caller.Tenants)
		}
	}
	if req.Fork != nil {
		if err := s.parent(ctx, req.Fork.PlanID); err != nil {
			return startOutput{}, err
		}
	}
	return s.startChecked(ctx, in.PlanID, req)
}

// parent refuses a fork of a plan Temporal does not know, or the caller
// may not see, before a plan starts that could only fail.
func (s *server) parent(ctx context.Context, id string) error {
	tenant, err := tenantOf(ctx, s.plans.Temporal(), id)
	if err == nil && !s.caller.mayUse(tenant) {
		err = errNoPlan(id)
	}
	return s.refusal(ctx, id, err)
}

// startChecked starts req under id and answers the run.
func (s *server) startChecked(ctx context.Context, id string, req signals.StartRequest) (startOutput, error) {
	run, err := s.plans.Start(ctx, id, req)
	if err != nil {
		return startOutput{}, err
	}
	return startOutput{PlanID: run.GetID(), RunID: run.GetRunID()}, nil
}

// fork starts a plan from the files of a plan the caller sees.
func (s *server) fork(ctx context.Context, in forkInput) (startOutput, error) {
	if err := s.parent(ctx, in.PlanID); err != nil {
		return startOutput{}, err
	}
	req := in.request()
	if s.caller.limited() {
		req.Tenant = s.caller.Tenants[0]
	}
	return s.startChecked(ctx, in.NewPlanID, req)
}

// status answers how the plan stands and, when it answers its queries,
// what it waits for.
func (s *server) status(ctx context.Context, in planRef) (statusOutput, error) {
	st, err := s.plans.Standing(ctx, in.PlanID)
	if err != nil {
		return statusOutput{}, err
	}
	out := statusOutput{Standing: st}
	if st.Progress == nil {
		return out, nil
	}
	p, err := query(ctx, s, in.PlanID, s.plans.Pending)
	if err != nil {
		out.PendingError = err.Error()
		return out, nil
	}
	out.Pending = &p
	return out, nil
}

// control pauses, resumes or cancels the plan.
func (s *server) control(ctx context.Context, in controlInput) (controlOutput, error) {
	out := controlOutput{PlanID: in.PlanID, Action: in.Action}
	in.By = s.caller.Identity
	var st signals.ControlState
	var err error
	switch in.Action {
	case actionPause:
		st, err = s.plans.Pause(ctx, in.PlanID, in.ControlRequest)
	case actionResume:
		st, err = s.plans.Resume(ctx, in.PlanID, in.ControlRequest)
	default:
		err = s.plans.Cancel(ctx, in.PlanID, in.ControlRequest)
		out.CancelRequested = err == nil
		return out, err
	}
	if err != nil {
		return out, err
	}
	out.State = &st
	return out, nil
}

// errStillOpen refuses the result of a plan that has not ended.
func errStillOpen(id string) error {
	return fmt.Errorf("%w: plan %s is still running: follow it with %s and ask again once it ended, or give wait",
		signals.ErrRejected, id, ToolStatus)
}

// result answers the plan's Result once it ended; an open plan is waited
// for at most in.Wait (bounded by the call timeout), then refused.
func (s *server) result(ctx context.Context, in resultInput) (signals.Result, error) {
	status, err := s.plans.Status(ctx, in.PlanID)
	if err != nil {
		return signals.Result{}, err
	}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return s.plans.Result(ctx, in.PlanID)
	}
	if in.Wait <= 0 {
		return signals.Result{}, errStillOpen(in.PlanID)
	}
	wctx, cancel := context.WithTimeout(ctx, in.Wait.D())
	defer cancel()
	res, err := s.plans.Result(wctx, in.PlanID)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return signals.Result{}, errStillOpen(in.PlanID)
	}
	return res, err
}

// rollback restores the plan's files: through the plan's rollback update
// while it runs, through a PlanRollback once it ended.
func (s *server) rollback(ctx context.Context, in rollbackInput) (signals.RollbackPlanResult, error) {
	status, err := s.plans.Status(ctx, in.PlanID)
	if err != nil {
		return signals.RollbackPlanResult{}, err
	}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return s.plans.RollbackEnded(ctx, in.PlanID, in.StepID, in.Force)
	}
	resp, err := rollbackOpen(ctx, s.plans, in.PlanID, signals.RollbackRequest{StepID: in.StepID, By: s.caller.Identity})
	if err != nil {
		return signals.RollbackPlanResult{}, err
	}
	return signals.RollbackPlanResult{PlanID: in.PlanID, PlanStatus: "Running", Restored: resp.Restored, Removed: resp.Removed}, nil
}

// rollbackOpen sends the rollback update to open plan id with req, which
// names its caller (planclient.Client.Rollback names the client's own
// identity). Its error reads as planclient's do.
func rollbackOpen(ctx context.Context, plans Plans, id string, req signals.RollbackRequest) (signals.RollbackResponse, error) {
	resp, err := signals.Rollback.Update(ctx, plans.Temporal(), id, req)
	if err != nil {
		return resp, &planError{msg: fmt.Sprintf("plan %s: update %s: %s", id, signals.Rollback.Name, signals.RejectionReason(err)), err: err}
	}
	return resp, nil
}

// planError is a failed call on a plan, its message as a person reads
// it; errors.Is and errors.As see the cause.
type planError struct {
	msg string
	err error
}

func (e *planError) Error() string { return e.msg }
func (e *planError) Unwrap() error { return e.err }

// approvals answers the gated calls waiting: of one plan, or across the
// open plans the caller sees.
func (s *server) approvals(ctx context.Context, in approvalsInput) (planclient.Inbox, error) {
	if in.PlanID != "" {
		if err := s.visible(ctx, in.PlanID); err != nil {
			return planclient.Inbox{}, s.refusal(ctx, in.PlanID, err)
		}
		p, err := query(ctx, s, in.PlanID, s.plans.Pending)
		if err != nil {
			return planclient.Inbox{}, s.refusal(ctx, in.PlanID, err)
		}
		inbox := planclient.Inbox{Approvals: []planclient.PlanApproval{}}
		for _, a := range p.Approvals {
			inbox.Approvals = append(inbox.Approvals, planclient.PlanApproval{WorkflowID: in.PlanID, ToolApproval: a})
		}
		return inbox, nil
	}
	inbox, err := s.plans.Approvals(ctx)
	if err != nil || !s.caller.limited() {
		return inbox, err
	}
	return s.caller.filterInbox(ctx, s.plans, inbox)
}

// filterInbox keeps the approvals and unanswered plans of c's tenants.
func (c Caller) filterInbox(ctx context.Context, plans Plans, inbox planclient.Inbox) (planclient.Inbox, error) {
	mine := map[string]bool{}
	sees := func(id string) (bool, error) {
		if v, ok := mine[id]; ok {
			return v, nil
		}
		tenant, err := tenantOf(ctx, plans.Temporal(), id)
		if err != nil && !isNotFound(err) {
			return false, err
		}
		mine[id] = err == nil && c.mayUse(tenant)
		return mine[id], nil
	}
	var firstErr error
	keep := func(id string) bool {
		ok, err := sees(id)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return ok
	}
	inbox.Approvals = slices.DeleteFunc(inbox.Approvals, func(a planclient.PlanApproval) bool { return !keep(a.WorkflowID) })
	inbox.Unanswered = slices.DeleteFunc(inbox.Unanswered, func(u planclient.Unanswered) bool { return !keep(u.WorkflowID) })
	if inbox.Approvals == nil {
		inbox.Approvals = []planclient.PlanApproval{}
	}
	return inbox, firstErr
}

// isNotFound reports whether err says the plan does not exist: Temporal
// does not know it, or the caller may not see it.
func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	var np noPlanError
	return errors.As(err, &nf) || errors.As(err, &np)
}
