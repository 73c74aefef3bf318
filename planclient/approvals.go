package planclient

import (
	"context"
	"fmt"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/planmode/planmode/signals"
)

// MaxInboxPlans bounds the plans Approvals asks: each costs a query to a
// worker, and an inbox of more plans than this is read by plan.
const MaxInboxPlans = 200

// Approve approves the gated tool call req.RequestID of plan id and
// answers the decision. ArgsDigest and PlanVersion, taken from the
// pending request (Pending, Approvals), bind the approval to what was
// shown: when they differ from the request, or the plan changed since it
// was asked, it is refused with signals.ErrorTypeStaleApproval.
func (c *Client) Approve(ctx context.Context, id string, req signals.ApproveToolCallRequest) (signals.ApprovalDecision, error) {
	req.By = c.by(req.By)
	v, err := signals.ApproveToolCall.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// Deny denies the gated tool call req.RequestID of plan id with a reason
// the agent sees, and answers the decision.
func (c *Client) Deny(ctx context.Context, id string, req signals.DenyToolCallRequest) (signals.ApprovalDecision, error) {
	req.By = c.by(req.By)
	v, err := signals.DenyToolCall.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// RaiseBudget raises the budget caps of plan id (only upward) and
// answers the budget in force; a plan paused on its budget resumes.
func (c *Client) RaiseBudget(ctx context.Context, id string, req signals.RaiseBudgetRequest) (signals.RaiseBudgetResponse, error) {
	req.By = c.by(req.By)
	v, err := signals.RaiseBudget.Update(ctx, c.c, id, req)
	return v, wrap(id, err)
}

// PlanApproval is one gated tool call of the inbox: the plan that waits
// and the call it waits on.
type PlanApproval struct {
	WorkflowID string `json:"workflowId"`
	signals.ToolApproval
}

// Unanswered is a plan visibility lists as awaiting an approval that did
// not answer its pending query, and why.
type Unanswered struct {
	WorkflowID string `json:"workflowId"`
	Error      string `json:"error"`
}

// Inbox is every pending approval across plans.
type Inbox struct {
	Approvals []PlanApproval `json:"approvals"`
	// Unanswered lists the plans that could not be asked; their
	// approvals are not in Approvals.
	Unanswered []Unanswered `json:"unanswered,omitempty"`
	// Truncated is set when more than MaxInboxPlans plans await an
	// approval: only the first were asked.
	Truncated bool `json:"truncated,omitempty"`
}

// ApprovalsQuery is the visibility query of the plans that may wait for
// an approval: those awaiting one, and those awaiting a skip confirmation,
// which PlanAwaiting names first (view.Awaiting) though a step beside the
// skipped ones may wait for an approval too.
func ApprovalsQuery() string {
	return fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND %s IN ('%s', '%s')",
		signals.WorkflowType, signals.AwaitingAttr.GetName(), signals.AwaitingApproval, signals.AwaitingConfirmation)
}

// Approvals lists every pending approval across the open plans that
// visibility shows may await one (ApprovalsQuery), asking each
// plan's pending query, up to MaxInboxPlans plans. A plan that cannot
// answer is listed in Unanswered, not fatal; an error is returned only
// when visibility cannot be listed. Visibility lags the plans by a
// moment: a call gated a second ago may be missing.
func (c *Client) Approvals(ctx context.Context) (Inbox, error) {
	var inbox Inbox
	ids, truncated, err := c.awaitingApproval(ctx)
	if err != nil {
		return inbox, err
	}
	inbox.Truncated = truncated
	for _, id := range ids {
		p, err := c.Pending(ctx, id)
		if err != nil {
			inbox.Unanswered = append(inbox.Unanswered, Unanswered{WorkflowID: id, Error: err.Error()})
			continue
		}
		for _, a := range p.Approvals {
			inbox.Approvals = append(inbox.Approvals, PlanApproval{WorkflowID: id, ToolApproval: a})
		}
	}
	return inbox, nil
}

// awaitingApproval returns the ids of the plans visibility lists as
// awaiting an approval, at most MaxInboxPlans, and whether there were
// more.
func (c *Client) awaitingApproval(ctx context.Context) ([]string, bool, error) {
	var ids []string
	var token []byte
	for {
		resp, err := c.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: ApprovalsQuery(), PageSize: 100, NextPageToken: token,
		})
		if err != nil {
			return nil, false, fmt.Errorf("list plans awaiting approval: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			if len(ids) == MaxInboxPlans {
				return ids, true, nil
			}
			ids = append(ids, e.GetExecution().GetWorkflowId())
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return ids, false, nil
		}
	}
}
