package signals

import (
	"time"

	"github.com/planmode/planmode/plan"
)

// SelectOptionRequest picks an option by OptionID, or by Rank when
// OptionID is empty (1 is the recommended option).
type SelectOptionRequest struct {
	OptionID string `json:"optionId,omitempty"`
	Rank     int    `json:"rank,omitempty"`
	Feedback string `json:"feedback,omitempty"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// SelectOptionResponse answers a selection.
type SelectOptionResponse struct {
	Option plan.Option `json:"option"`
}

// RefinePlanRequest asks for new options.
type RefinePlanRequest struct {
	Feedback string `json:"feedback"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// AnswerClarificationRequest answers the clarifying questions.
type AnswerClarificationRequest struct {
	Answers map[string]string `json:"answers"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// ClarificationResponse answers an answer-clarification update.
type ClarificationResponse struct {
	Accepted  int      `json:"accepted"`
	Remaining []string `json:"remaining,omitempty"`
}

// ConfirmSkipRequest approves or denies the skip request RequestID.
type ConfirmSkipRequest struct {
	RequestID string `json:"requestId"`
	Approve   bool   `json:"approve"`
	Note      string `json:"note,omitempty"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// ConfirmSkipResponse answers a confirm-skip update.
type ConfirmSkipResponse struct {
	RequestID string   `json:"requestId"`
	Approved  bool     `json:"approved"`
	StepIDs   []string `json:"stepIds"`
}

// EditPlanRequest edits the plan; the edits apply all or nothing.
type EditPlanRequest struct {
	Edits  []plan.Edit `json:"edits"`
	Reason string      `json:"reason"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// EditPlanResponse answers an edit with the new plan version.
type EditPlanResponse struct {
	Version int       `json:"version"`
	Plan    plan.Plan `json:"plan"`
}

// ControlRequest pauses or resumes.
type ControlRequest struct {
	Reason string `json:"reason,omitempty"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// ControlState answers pause and resume.
type ControlState struct {
	Phase  plan.Phase `json:"phase"`
	Mode   plan.Mode  `json:"mode"`
	Paused bool       `json:"paused"`
	Reason string     `json:"reason,omitempty"`
}

// AwaitOptionsRequest asks for the options once they exist. It has no
// fields.
type AwaitOptionsRequest struct{}

// RollbackRequest restores the workspace: as it was before execution, or
// as it was after step StepID.
type RollbackRequest struct {
	StepID string `json:"stepId,omitempty"`
	// By names the caller (see Caller).
	By string `json:"by,omitempty"`
}

// RollbackResponse says which files rollback restored or removed.
type RollbackResponse struct {
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
}

// StepRef names a step in progress reports.
type StepRef struct {
	ID     string `json:"id"`
	Number int    `json:"number"`
	Title  string `json:"title"`
}

// Progress answers the progress query.
type Progress struct {
	Phase       plan.Phase  `json:"phase"`
	Mode        plan.Mode   `json:"mode"`
	Awaiting    Awaiting    `json:"awaiting"`
	Paused      bool        `json:"paused"`
	CurrentStep *StepRef    `json:"currentStep,omitempty"`
	Totals      plan.Totals `json:"totals"`
	Percent     int         `json:"percent"`
	StartedAt   time.Time   `json:"startedAt"`
	// Elapsed is the time the run has been running since StartedAt,
	// paused time left out; PausedFor is that paused time.
	Elapsed   plan.Duration `json:"elapsed"`
	PausedFor plan.Duration `json:"pausedFor,omitempty"`
	// EstimatedRemaining is the model's estimates of the steps not done,
	// or without them the mean measured step duration times the steps
	// left, divided by the steps that can run at once.
	EstimatedRemaining plan.Duration `json:"estimatedRemaining"`
	// MaxConcurrent is the most steps that ran at once so far.
	MaxConcurrent int        `json:"maxConcurrent,omitempty"`
	Usage         plan.Usage `json:"usage"`
	Tokens        int        `json:"tokens"`
	CostUSD       float64    `json:"costUSD"`
	LastError     string     `json:"lastError,omitempty"`
	// Offline is set when the offline model plays the LLM.
	Offline bool `json:"offline,omitempty"`
}

// PlanView answers the plan query: the plan (nil before selection) and the
// validation of its current version.
type PlanView struct {
	// Goal is the plan's clarified goal.
	Goal       string                `json:"goal,omitempty"`
	Plan       *plan.Plan            `json:"plan,omitempty"`
	Validation plan.ValidationResult `json:"validation"`
}

// OptionsView answers the options query and refine-plan.
type OptionsView struct {
	// Revision counts option generations: 1 for the first, +1 per refine.
	Revision         int                  `json:"revision"`
	Options          []plan.Option        `json:"options"`
	Comparison       plan.Comparison      `json:"comparison"`
	RecommendedID    string               `json:"recommendedId,omitempty"`
	SelectedID       string               `json:"selectedId,omitempty"`
	Dropped          []plan.DroppedOption `json:"dropped,omitempty"`
	Feedback         []string             `json:"feedback,omitempty"`
	SelectionTimeout *time.Time           `json:"selectionDeadline,omitempty"`
}

// SelectionRequest describes a pending selection.
type SelectionRequest struct {
	Revision  int        `json:"revision"`
	OptionIDs []string   `json:"optionIds"`
	Deadline  *time.Time `json:"deadline,omitempty"`
	OnTimeout string     `json:"onTimeout,omitempty"`
}

// ClarificationRequest describes pending questions.
type ClarificationRequest struct {
	Questions []string   `json:"questions"`
	Deadline  *time.Time `json:"deadline,omitempty"`
}

// SkipConfirmation is a skip waiting for a human.
type SkipConfirmation struct {
	RequestID  string     `json:"requestId"`
	StepIDs    []string   `json:"stepIds"`
	Reason     string     `json:"reason"`
	Confidence float64    `json:"confidence"`
	Deadline   *time.Time `json:"deadline,omitempty"`
	// DefaultApprove is what happens at the deadline.
	DefaultApprove bool `json:"defaultApprove"`
}

// Rejection records an input the run refused.
type Rejection struct {
	At     time.Time `json:"at"`
	Name   string    `json:"name"`
	Reason string    `json:"reason"`
	// By is the caller the input named, if it named one.
	By string `json:"by,omitempty"`
	// Payload is the refused input, cut short if long.
	Payload string `json:"payload,omitempty"`
}

// Pending answers the pending query.
type Pending struct {
	Awaiting          Awaiting              `json:"awaiting"`
	Workspace         *WorkspaceWait        `json:"workspace,omitempty"`
	Selection         *SelectionRequest     `json:"selection,omitempty"`
	Clarification     *ClarificationRequest `json:"clarification,omitempty"`
	SkipConfirmations []SkipConfirmation    `json:"skipConfirmations,omitempty"`
	// Approvals are the gated tool calls waiting for approve-tool-call
	// or deny-tool-call, oldest first.
	Approvals []ToolApproval `json:"approvals,omitempty"`
	Paused    bool           `json:"paused"`
	Rejected  []Rejection    `json:"rejected,omitempty"`
}

// MaxCallerBytes bounds the by field of a signal or update.
const MaxCallerBytes = 256

// Caller is who sent a signal or update, for the plan's version history,
// the rejected inputs and the details: the payload's by field, which
// planclient's Client fills from its identity, or "user" when it is
// empty. Temporal does not tell workflow code who sent an input, so the
// caller says it; it is a label, not an authentication.
func Caller(by string) plan.Actor {
	if by == "" {
		return plan.ActorUser
	}
	return plan.Actor(by)
}
