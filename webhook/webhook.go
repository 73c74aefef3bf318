package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Event is what a webhook tells its receiver.
type Event string

// Events. The awaiting-* events tell a person or a service that the run
// waits for them; the step events, plan-updated, paused, resumed and
// budget-exceeded follow the work and its changes, the final three its
// end.
const (
	EventPlanCreated           Event = "plan-created"
	EventAwaitingSelection     Event = "awaiting-selection"
	EventAwaitingClarification Event = "awaiting-clarification"
	EventAwaitingConfirmation  Event = "awaiting-confirmation"
	EventStepStarted           Event = "step-started"
	EventStepCompleted         Event = "step-completed"
	EventStepFailed            Event = "step-failed"
	// EventPlanUpdated follows an edit or a replan: a new plan version.
	EventPlanUpdated Event = "plan-updated"
	// EventPaused and EventResumed follow pause and resume (a budget
	// pause included); EventBudgetExceeded tells that a budget stopped
	// or paused the run.
	EventPaused         Event = "paused"
	EventResumed        Event = "resumed"
	EventBudgetExceeded Event = "budget-exceeded"
	// EventApprovalRequested tells that a gated tool call waits for
	// approve-tool-call or deny-tool-call (again after the plan changed);
	// EventApprovalReminder that it still does at its reminder time;
	// EventApprovalDecided how it was decided (by a person, by its
	// timeout, or by a deny rule: by "policy").
	EventApprovalRequested Event = "approval-requested"
	EventApprovalReminder  Event = "approval-reminder"
	EventApprovalDecided   Event = "approval-decided"
	EventCompleted         Event = "completed"
	EventFailed            Event = "failed"
	EventCancelled         Event = "cancelled"
)

// FromLog returns the webhook event a plan's log event of type t is
// delivered as, and false when it is delivered as none. The log and the
// webhooks share a name wherever they tell the same change; a log's
// options-ready is delivered as plan-created, budget-raised as
// plan-updated, and its ended as completed
// (or answered), failed or cancelled by the plan's status.
func FromLog(t signals.EventType, status signals.Status) (Event, bool) {
	switch t {
	case signals.EventOptionsReady, signals.EventPlanCreated:
		return EventPlanCreated, true
	case signals.EventBudgetRaised:
		// A raise changes what the plan may spend: receivers have been
		// told of it as a plan update.
		return EventPlanUpdated, true
	case signals.EventEnded:
		switch status {
		case signals.StatusFailed:
			return EventFailed, true
		case signals.StatusCancelled:
			return EventCancelled, true
		}
		return EventCompleted, true
	case signals.EventAwaitingSelection, signals.EventAwaitingClarification, signals.EventAwaitingConfirmation,
		signals.EventStepStarted, signals.EventStepCompleted, signals.EventStepFailed, signals.EventPlanUpdated,
		signals.EventPaused, signals.EventResumed, signals.EventBudgetExceeded,
		signals.EventApprovalRequested, signals.EventApprovalReminder, signals.EventApprovalDecided:
		return Event(t), true
	}
	return "", false
}

// Request headers.
const (
	HeaderEvent          = "X-Planmode-Event"
	HeaderSignature      = "X-Planmode-Signature"
	HeaderIdempotencyKey = "Idempotency-Key"
	// signaturePrefix starts the signature header's value.
	signaturePrefix = "sha256="
)

// Data is the event-specific part of a body; an event sets the fields
// that concern it and the others are left out. Workflows carry it in
// their history, so its JSON shape is part of the wire contract.
type Data struct {
	Goal string `json:"goal,omitempty"`
	// Message is one line a person can read.
	Message string `json:"message,omitempty"`
	// Step is the step of step-completed and step-failed.
	Step *signals.StepRef `json:"step,omitempty"`
	// Selection, Clarification and Skip describe what an awaiting-* event
	// waits for, as the pending query shows it.
	Selection     *signals.SelectionRequest     `json:"selection,omitempty"`
	Clarification *signals.ClarificationRequest `json:"clarification,omitempty"`
	Skip          *signals.SkipConfirmation     `json:"skip,omitempty"`
	// Approval is the gated call of the approval-* events; Decision how
	// approval-decided decided it.
	Approval *signals.ToolApproval     `json:"approval,omitempty"`
	Decision *signals.ApprovalDecision `json:"decision,omitempty"`
	Percent  int                       `json:"percent,omitempty"`
	// Status, Summary and Error report the end of a run.
	Status  signals.Status `json:"status,omitempty"`
	Summary string         `json:"summary,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// Body is the JSON a webhook receives.
type Body struct {
	Event      Event      `json:"event"`
	WorkflowID string     `json:"workflowId"`
	RunID      string     `json:"runId"`
	Phase      plan.Phase `json:"phase"`
	At         time.Time  `json:"at"`
	Data       Data       `json:"data"`
}

// Signature returns the signature header value of body under secret:
// "sha256=" and the hex HMAC-SHA256.
func Signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature reports whether header (the X-Planmode-Signature value)
// signs body under secret. Receivers call it on the raw body before
// decoding it; it compares in constant time and is false for an empty
// secret or a malformed header.
func VerifySignature(secret string, body []byte, header string) bool {
	if secret == "" || !strings.HasPrefix(header, signaturePrefix) {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, signaturePrefix))
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
