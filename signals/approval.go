package signals

import (
	"encoding/json"
	"time"

	"github.com/planmode/planmode/plan"
)

// Approval gates. A tool call the approval rules (plan.ApprovalRules) say
// to ask about holds only its step: the run lists it in the pending
// query's Approvals, sets PlanAwaiting to [AwaitingApproval] and sends
// the approval-requested webhook event, then waits for approve-tool-call
// or deny-tool-call, reminding once at RemindAt and deciding by
// OnTimeout at Deadline. Every outcome becomes an [ApprovalDecision].

// ApproveToolCall approves a gated call. It is bound to what the person
// saw: the request id, the digest of the arguments and the plan version
// the call was asked under. An approval whose digest or version differs
// from the open request's is refused with [ErrorTypeStaleApproval].
var ApproveToolCall = Handler[ApproveToolCallRequest, ApprovalDecision]{
	Name:        "approve-tool-call",
	Description: "Approve a gated tool call: {requestId, argsDigest, planVersion} as the pending query shows them, optionally edited args. Answers the decision.",
}

// DenyToolCall denies a gated call; the agent sees the reason.
var DenyToolCall = Handler[DenyToolCallRequest, ApprovalDecision]{
	Name:        "deny-tool-call",
	Description: "Deny a gated tool call by requestId with a reason the agent sees. Answers the decision.",
}

// RaiseBudget gives a plan higher budget caps; a plan paused on its
// budget resumes. It is an update only: the caller needs to know whether
// the caps were taken and the plan resumed.
var RaiseBudget = UpdateOnly[RaiseBudgetRequest, RaiseBudgetResponse]{
	Name:        "raise-budget",
	Description: "Raise the plan's budget caps (maxTokens, maxCostUSD; only upward) with a reason. A plan paused on its budget resumes. Answers the new budget.",
}

// AwaitingApproval: a gated tool call waits for approve-tool-call or
// deny-tool-call.
const AwaitingApproval Awaiting = "approval"

// ApprovalTimeout is what happens to a gated call nobody decided by its
// deadline.
type ApprovalTimeout string

// Approval timeout outcomes.
const (
	// ApprovalTimeoutDeny denies the call; the agent sees that nobody
	// approved it in time.
	ApprovalTimeoutDeny ApprovalTimeout = "deny"
	// ApprovalTimeoutFailStep fails the step that made the call (its
	// retries and fallback apply).
	ApprovalTimeoutFailStep ApprovalTimeout = "fail-step"
	// ApprovalTimeoutPause pauses the plan with the call still pending:
	// a person can still approve or deny it, then resume.
	ApprovalTimeoutPause ApprovalTimeout = "pause"
	// ApprovalTimeoutFailPlan fails the plan.
	ApprovalTimeoutFailPlan ApprovalTimeout = "fail-plan"
)

// ApprovalPolicy is a request's approval settings. Rules tighten the
// worker's (plan.Tighten): they can make a call stricter, never looser.
// Zero durations and an empty OnTimeout take the worker's
// approval.timeout, approval.remindAfter and approval.onTimeout.
type ApprovalPolicy struct {
	Rules plan.ApprovalRules `json:"rules,omitempty"`
	// Timeout is how long a gated call waits before OnTimeout decides;
	// at most MaxWait. A gate never waits for ever.
	Timeout plan.Duration `json:"timeout,omitempty"`
	// RemindAfter is when the approval-reminder event is sent; it must
	// come before Timeout.
	RemindAfter plan.Duration   `json:"remindAfter,omitempty"`
	OnTimeout   ApprovalTimeout `json:"onTimeout,omitempty"`
}

// ApproveToolCallRequest approves the gated call RequestID. ArgsDigest
// and PlanVersion, when given, are the ones the pending query showed: the
// approval is then of exactly what the person saw, and refused as stale
// when they differ. Whether given or not, an approval of a request asked
// under an older plan version than the plan's now is refused as stale.
// Args, when set, replaces the call's arguments (a JSON object, at most
// MaxApprovalArgsBytes), and the decision records that they were edited.
// Note is the approver's word on it, kept with the decision.
type ApproveToolCallRequest struct {
	RequestID   string          `json:"requestId"`
	ArgsDigest  string          `json:"argsDigest,omitempty"`
	PlanVersion int             `json:"planVersion,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"`
	Note        string          `json:"note,omitempty"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// DenyToolCallRequest denies the gated call RequestID. Reason is
// required: the agent sees it and decides what to do instead.
type DenyToolCallRequest struct {
	RequestID string `json:"requestId"`
	// By names the caller (see Caller).
	By     string `json:"by,omitempty"`
	Reason string `json:"reason"`
}

// RaiseBudgetRequest sets new budget caps, each only upward; zero leaves
// a cap as it is. Reason is required.
type RaiseBudgetRequest struct {
	MaxTokens  int     `json:"maxTokens,omitempty"`
	MaxCostUSD float64 `json:"maxCostUSD,omitempty"`
	// By names the caller (see Caller).
	By     string `json:"by,omitempty"`
	Reason string `json:"reason"`
}

// RaiseBudgetResponse answers raise-budget with the budget now in force
// and whether a budget pause ended.
type RaiseBudgetResponse struct {
	Budget  Budget `json:"budget"`
	Resumed bool   `json:"resumed"`
}

// ToolApproval is a gated tool call waiting for a person, as the pending
// query, the approval webhook events and the checkpoint carry it.
type ToolApproval struct {
	RequestID string `json:"requestId"`
	StepID    string `json:"stepId"`
	Tool      string `json:"tool"`
	// Args are the call's arguments as canonical JSON when they fit in
	// MaxApprovalArgsBytes; otherwise ArgsPreview holds their head and
	// ArgsBytes their size. ArgsDigest is plan.ArgsDigest of the whole
	// arguments either way.
	Args        json.RawMessage `json:"args,omitempty"`
	ArgsPreview string          `json:"argsPreview,omitempty"`
	ArgsBytes   int             `json:"argsBytes"`
	ArgsDigest  string          `json:"argsDigest"`
	// PlanVersion is the plan's version when the call was gated.
	PlanVersion int `json:"planVersion"`
	// Why is the rule (or default) that asked for approval.
	Why      string     `json:"why"`
	Since    time.Time  `json:"since"`
	RemindAt *time.Time `json:"remindAt,omitempty"`
	// Reminded is set once the approval-reminder event went out.
	Reminded  bool            `json:"reminded,omitempty"`
	Deadline  time.Time       `json:"deadline"`
	OnTimeout ApprovalTimeout `json:"onTimeout"`
}

// Decision is how a gated call was decided.
type Decision string

// Decisions.
const (
	DecisionApproved Decision = "approved"
	DecisionDenied   Decision = "denied"
	// DecisionTimedOut: nobody decided by the deadline; the request's
	// OnTimeout decided (see ApprovalDecision.Reason).
	DecisionTimedOut Decision = "timed-out"
)

// ApprovalDecision records how a gated call was decided, by whom or what,
// and why. The run keeps them (Checkpoint.ApprovalDecisions) and answers
// approve-tool-call and deny-tool-call with one.
type ApprovalDecision struct {
	RequestID string    `json:"requestId"`
	StepID    string    `json:"stepId,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Decision  Decision  `json:"decision"`
	By        string    `json:"by"`
	Reason    string    `json:"reason,omitempty"`
	At        time.Time `json:"at"`
	// EditedArgs is set when the approval replaced the arguments.
	EditedArgs bool `json:"editedArgs,omitempty"`
	// Auto is set when no person decided: the timeout did.
	Auto bool `json:"auto,omitempty"`
}

// ApprovalArgs returns what a ToolApproval shows of args: the canonical
// JSON when it fits in MaxApprovalArgsBytes, otherwise a preview of its
// head; and its size.
func ApprovalArgs(args json.RawMessage) (full json.RawMessage, preview string, size int) {
	c := plan.CanonicalArgs(args)
	if len(c) <= MaxApprovalArgsBytes && json.Valid(c) {
		return c, "", len(c)
	}
	return nil, plan.TruncateBytes(string(c), MaxApprovalPreviewBytes), len(c)
}
