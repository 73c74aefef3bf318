package signals

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/planmode/planmode/plan"
)

// The event log: one per plan, followed as it happens by the CLI, services
// and browsers. Every change a person or a service follows becomes an
// [Event] with a sequence number that grows across continue-as-new, a
// time, a type and a small bounded body. A follower asks for the events
// after the last one it saw ([AwaitEvents]) and is answered as soon as
// there are some; the plan keeps only recent events, and a follower that
// asks for older ones gets a [EventGap] carrying the current state.
//
// Where an event is also a webhook event (package webhook), it has the
// webhook's name, so that one vocabulary serves both.

// EventType names what an [Event] tells.
type EventType string

// Event types.
const (
	// EventPhaseChanged: the run entered a new phase (Data: the phase).
	EventPhaseChanged EventType = "phase-changed"
	// EventAwaitingChanged: what the run waits for changed (Data: the
	// Awaiting value and what the pending query shows of it).
	EventAwaitingChanged EventType = "awaiting-changed"
	// EventOptionsReady: the options of a revision exist.
	EventOptionsReady EventType = "options-ready"
	// EventOptionSelected: an option was selected (by a person or the
	// selection policy).
	EventOptionSelected EventType = "option-selected"

	// Steps. Step names the step.
	EventStepStarted   EventType = "step-started"
	EventStepRetried   EventType = "step-retried"
	EventStepCompleted EventType = "step-completed"
	EventStepFailed    EventType = "step-failed"
	EventStepSkipped   EventType = "step-skipped"

	// Tool calls of a step.
	EventToolCallStarted  EventType = "tool-call-started"
	EventToolCallFinished EventType = "tool-call-finished"

	// Gated tool calls: asked, and decided (by a person, a timeout or a
	// rule).
	EventApprovalRequested EventType = "approval-requested"
	EventApprovalDecided   EventType = "approval-decided"

	// Skip confirmations the reflection asks a person for, and their
	// answers.
	EventConfirmationAsked    EventType = "confirmation-asked"
	EventConfirmationAnswered EventType = "confirmation-answered"

	// EventPlanUpdated: the plan was edited or replanned, a new plan
	// version (the webhook's plan-updated).
	EventPlanUpdated EventType = "plan-updated"
	// EventReflectionDecided: the reflection after a step decided
	// (continue, retry, skip, replan).
	EventReflectionDecided EventType = "reflection-decided"

	// Budgets: what was used so far, a budget that stopped or paused
	// the run (the webhook's budget-exceeded), and a raise.
	EventBudgetUsed     EventType = "budget-used"
	EventBudgetExceeded EventType = "budget-exceeded"
	EventBudgetRaised   EventType = "budget-raised"

	// EventModelUsage: the tokens and cost of one model call.
	EventModelUsage EventType = "model-usage"
	// EventModelText: a delta of the text of a model call still running.
	// It is for followers watching live only: it is never kept in the
	// log or in history, so a follower that resumes does not get it
	// again.
	EventModelText EventType = "model-text"

	// Pause and resume, a budget pause included.
	EventPaused  EventType = "paused"
	EventResumed EventType = "resumed"
	// EventEnded: the plan ended; Data holds its Status. It is the last
	// event of a log. (Webhooks tell it as completed, failed or
	// cancelled.)
	EventEnded EventType = "ended"

	// EventGap: a follower asked for events older than the plan keeps;
	// Data carries the plan's current state, from which the follower goes
	// on with the events after this one's Seq.
	EventGap EventType = "gap"
)

// EventTypes lists every event type, in the order above.
var EventTypes = []EventType{
	EventPhaseChanged, EventAwaitingChanged, EventOptionsReady, EventOptionSelected,
	EventStepStarted, EventStepRetried, EventStepCompleted, EventStepFailed, EventStepSkipped,
	EventToolCallStarted, EventToolCallFinished, EventApprovalRequested, EventApprovalDecided,
	EventConfirmationAsked, EventConfirmationAnswered, EventPlanUpdated, EventReflectionDecided,
	EventBudgetUsed, EventBudgetExceeded, EventBudgetRaised, EventModelUsage, EventModelText,
	EventPaused, EventResumed, EventEnded, EventGap,
}

// Bounds of the event log. A plan keeps its recent events in its state,
// which travels in every continue-as-new, and answers up to
// MaxEventsPerReply of them in one update, whose answer must stay well
// under the server's 2 MB payload limit: 100 events of at most about
// 9 KiB each do.
const (
	// MaxEventMessageBytes bounds an event's one-line message.
	MaxEventMessageBytes = 1 << 10
	// MaxEventDataBytes bounds an event's data, as JSON.
	MaxEventDataBytes = 8 << 10
	// MaxEventsPerReply bounds the events of one [AwaitEventsResponse].
	MaxEventsPerReply = 100
)

// Event is one entry of a plan's event log.
type Event struct {
	// Seq numbers the plan's events from 1, without gaps, across
	// continue-as-new; a follower resumes after the last Seq it saw.
	Seq  int64     `json:"seq"`
	At   time.Time `json:"at"`
	Type EventType `json:"type"`
	// PlanID is the plan's workflow id, set where events of several plans
	// are mixed.
	PlanID string `json:"planId,omitempty"`
	// Step is the step the event concerns, if any.
	Step *StepRef `json:"step,omitempty"`
	// Message is one line a person can read.
	Message string `json:"message,omitempty"`
	// Data is the type's own part, as JSON.
	Data json.RawMessage `json:"data,omitempty"`
}

// truncatedData is what [Event.Bounded] puts in place of data over
// MaxEventDataBytes: JSON cannot be cut and stay JSON, so the follower is
// told how large it was and asks the plan's queries for the whole.
type truncatedData struct {
	Truncated bool `json:"truncated"`
	Bytes     int  `json:"bytes"`
}

// Bounded returns e with its message cut to MaxEventMessageBytes (on a
// rune boundary, with an ellipsis) and its data, when larger than
// MaxEventDataBytes, replaced by {"truncated": true, "bytes": N}. The
// plan bounds every event it records with it, so the log's size follows
// the count of events only.
func (e Event) Bounded() Event {
	e.Message = plan.TruncateBytes(e.Message, MaxEventMessageBytes)
	if len(e.Data) > MaxEventDataBytes {
		// Marshalling two plain fields cannot fail.
		e.Data, _ = json.Marshal(truncatedData{Truncated: true, Bytes: len(e.Data)})
	}
	return e
}

// AwaitEvents waits until plan events after a sequence number exist and
// answers them, at most Max (MaxEventsPerReply when zero), or that the
// plan ended. It is an update only: a follower long-polls with it, and a
// query cannot wait.
var AwaitEvents = UpdateOnly[AwaitEventsRequest, AwaitEventsResponse]{
	Name:        "await-events",
	Description: "Wait until events after sequence number `after` exist and answer up to `max` of them, or that the plan ended.",
}

// AwaitEventsRequest asks for the events after sequence number After.
type AwaitEventsRequest struct {
	// After is the last Seq the follower has; 0 asks from the start.
	After int64 `json:"after"`
	// Max bounds the events answered; 0 means MaxEventsPerReply.
	Max int `json:"max,omitempty"`
}

// Validate refuses a negative After and a Max outside 0..MaxEventsPerReply.
func (r AwaitEventsRequest) Validate() error {
	if r.After < 0 {
		return fmt.Errorf("after is %d: want 0 or more", r.After)
	}
	if r.Max < 0 {
		return fmt.Errorf("max is %d: want 0..%d", r.Max, MaxEventsPerReply)
	}
	if r.Max > MaxEventsPerReply {
		return tooLarge("max is %d: want 0..%d", r.Max, MaxEventsPerReply)
	}
	return nil
}

// Limit is the most events an answer to r may hold.
func (r AwaitEventsRequest) Limit() int {
	if r.Max == 0 {
		return MaxEventsPerReply
	}
	return r.Max
}

// AwaitEventsResponse answers [AwaitEvents]: the events after the asked
// sequence number, in order, and whether the plan ended (then Status says
// how, and no event follows the last one answered).
type AwaitEventsResponse struct {
	Events []Event `json:"events"`
	Ended  bool    `json:"ended,omitempty"`
	Status Status  `json:"status,omitempty"`
}

var _ interface{ Validate() error } = AwaitEventsRequest{}
