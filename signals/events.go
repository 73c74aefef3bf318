package signals

import (
	"encoding/json"
	"time"

	"github.com/planmode/planmode/plan"
)

// The event log: one per plan, followed as it happens by the CLI, services
// and browsers. Every change a person or a service follows becomes an
// [Event] with a sequence number that grows across continue-as-new, a
// time, a type and a small bounded body. The plan writes the events of
// each workflow task to its own history as one marker ([EventBatch]), so
// a follower reads them with the history's long poll: it waits on the
// server, never on a worker, and adds nothing to the plan's history. A
// run carries its recent events ([EventLogState]) into its continuation;
// a follower that asks for older ones than the run and those recent
// events hold gets one [EventGap] carrying the current state.
//
// The webhooks and the Web UI's current details are fed from the same
// log; where an event is also a webhook event (package webhook), it has
// the webhook's name.

// EventType names what an [Event] tells.
type EventType string

// Event types. Where an event is also delivered as a webhook, it has the
// webhook's name (package webhook maps the two: options-ready is
// delivered as plan-created, ended as completed, failed or cancelled).
const (
	// EventPhaseChanged: the run entered a new phase (Data: phase).
	EventPhaseChanged EventType = "phase-changed"
	// EventAwaitingChanged: what the run waits for changed (Data:
	// awaiting, one of the Awaiting values).
	EventAwaitingChanged EventType = "awaiting-changed"
	// EventOptionsReady: the options of a revision exist (Data: revision,
	// recommended and each option's id, title and score).
	EventOptionsReady EventType = "options-ready"
	// EventPlanCreated: a plan handed in with the request was adopted
	// (Data: steps).
	EventPlanCreated EventType = "plan-created"
	// EventOptionSelected: an option was selected, by a person or the
	// selection policy (Data: optionId, title, by, reason).
	EventOptionSelected EventType = "option-selected"
	// The asks that wait for a person (Data: what the pending query shows
	// of them: selection, clarification, skip).
	EventAwaitingSelection     EventType = "awaiting-selection"
	EventAwaitingClarification EventType = "awaiting-clarification"
	EventAwaitingConfirmation  EventType = "awaiting-confirmation"
	// EventConfirmationAnswered: a skip confirmation was answered or timed
	// out (Data: skip, approved, by, reason).
	EventConfirmationAnswered EventType = "confirmation-answered"

	// Steps. Step names the step; Data has percent, attempt and, for a
	// failure, error.
	EventStepStarted   EventType = "step-started"
	EventStepRetried   EventType = "step-retried"
	EventStepCompleted EventType = "step-completed"
	EventStepFailed    EventType = "step-failed"
	EventStepSkipped   EventType = "step-skipped"

	// EventToolCall: a tool call of a step started or finished (Data:
	// tool, argsDigest, state "started" or "finished", success and the
	// head of its outcome). Its arguments are never shown: only their
	// digest, and only once the call is complete.
	EventToolCall EventType = "tool-call"

	// Gated tool calls: asked, reminded of, and decided by a person, a
	// timeout or a rule (Data: approval, decision).
	EventApprovalRequested EventType = "approval-requested"
	EventApprovalReminder  EventType = "approval-reminder"
	EventApprovalDecided   EventType = "approval-decided"

	// EventPlanUpdated: the plan was edited or replanned, a new plan
	// version (Data: version, by, reason).
	EventPlanUpdated EventType = "plan-updated"
	// EventReflectionDecided: the reflection after a step decided (Data:
	// decision: continue, retry, skip, replan or complete; reason).
	EventReflectionDecided EventType = "reflection-decided"

	// Budgets: what was used so far (Data: tokens, costUSD), a budget
	// that stopped or paused the run, and a raise (Data: maxTokens,
	// maxCostUSD, by, reason).
	EventBudgetUsed     EventType = "budget-used"
	EventBudgetExceeded EventType = "budget-exceeded"
	EventBudgetRaised   EventType = "budget-raised"

	// EventUsage: the tokens and cost of one activity's model calls
	// (Data: phase, promptTokens, completionTokens, costUSD).
	EventUsage EventType = "usage"
	// EventModelText: text of a model call still running (Data:
	// ModelTextDelta). It is for followers watching live only: it is never
	// in the log or in history, and its Seq is that of the last event of
	// the log before it.
	EventModelText EventType = "model-text"

	// Pause and resume, a budget pause included (Data: reason, by).
	EventPaused  EventType = "paused"
	EventResumed EventType = "resumed"
	// EventEnded: the plan ended; Data holds status, summary and error. It
	// is the last event of a log.
	EventEnded EventType = "ended"

	// EventGap: a follower asked for events older than the plan keeps;
	// Data (EventGapData) carries the plan's current state, from which
	// the follower goes on with the events after this one's Seq.
	EventGap EventType = "gap"
)

// EventTypes lists every event type, in the order above.
var EventTypes = []EventType{
	EventPhaseChanged, EventAwaitingChanged, EventOptionsReady, EventPlanCreated, EventOptionSelected,
	EventAwaitingSelection, EventAwaitingClarification, EventAwaitingConfirmation, EventConfirmationAnswered,
	EventStepStarted, EventStepRetried, EventStepCompleted, EventStepFailed, EventStepSkipped,
	EventToolCall, EventApprovalRequested, EventApprovalReminder, EventApprovalDecided,
	EventPlanUpdated, EventReflectionDecided, EventBudgetUsed, EventBudgetExceeded, EventBudgetRaised,
	EventUsage, EventModelText, EventPaused, EventResumed, EventEnded, EventGap,
}

// Bounds of the event log. Every event is bounded (Event.Bounded), and
// what a run keeps of the log in memory and carries across
// continue-as-new is bounded in count and bytes.
const (
	// MaxEventMessageBytes bounds an event's one-line message.
	MaxEventMessageBytes = 1 << 10
	// MaxEventDataBytes bounds an event's data, as JSON.
	MaxEventDataBytes = 8 << 10
	// MaxRecentEvents and MaxRecentEventBytes bound the recent events a
	// run keeps (EventLogState.Recent): the newest that fit both.
	MaxRecentEvents     = 256
	MaxRecentEventBytes = 64 << 10
)

// Event is one entry of a plan's event log.
type Event struct {
	// Seq numbers the plan's events from 1, without gaps, across
	// continue-as-new; a follower resumes after the last Seq it saw.
	Seq int64 `json:"seq"`
	// At is the workflow time the event was recorded at. In a marker it is
	// left out where it is the batch's (EventBatch.At).
	At   time.Time `json:"at,omitzero"`
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

// size is about what e weighs in a run's memory and checkpoint: its
// message, data and the fixed fields.
func (e Event) size() int {
	n := len(e.Message) + len(e.Data) + len(e.Type) + len(e.PlanID) + 64
	if e.Step != nil {
		n += len(e.Step.ID) + len(e.Step.Title) + 16
	}
	return n
}

// EventLogName tags the markers a plan writes its events in
// (EventBatch.Log), so a reader of its history tells them from any other
// marker.
const EventLogName = "planmode-events/1"

// EventBatch is what a plan writes to its history for the events recorded
// in one workflow task: the data of one SideEffect marker. At is the
// workflow time of that task, which its events share: an event whose At
// is zero was recorded then (see Stamped).
//
// Progress is the run's progress query answer as of At, carried by the
// batch of a task that changed the plan's search attributes, edited the
// plan, paused, resumed or met the budget, and by at least one batch in
// every ProgressSnapshotEvery: a reader learns how a running plan stands
// from the newest one and the events since (Progress.Since), without a
// workflow task. A batch may carry Progress and no events.
type EventBatch struct {
	Log      string          `json:"log"`
	At       time.Time       `json:"at"`
	Events   []Event         `json:"events"`
	Progress *LoggedProgress `json:"progress,omitempty"`
}

// ProgressSnapshotEvery bounds how many of a run's batches go by without
// one that carries its progress: a reader going back from a run's newest
// batch finds one within this many.
const ProgressSnapshotEvery = 32

// Stamped returns the batch's events, each with its time: its own, or the
// batch's.
func (b EventBatch) Stamped() []Event {
	evs := make([]Event, len(b.Events))
	for i, e := range b.Events {
		if e.At.IsZero() {
			e.At = b.At
		}
		evs[i] = e
	}
	return evs
}

// EventLogState is what a run carries of its event log across
// continue-as-new: the last sequence number given, the recent events
// (oldest first, within MaxRecentEvents and MaxRecentEventBytes) and
// the phase and awaiting the log last told, so the continuation neither
// repeats nor skips a change.
type EventLogState struct {
	EventSeq      int64      `json:"eventSeq,omitempty"`
	RecentEvents  []Event    `json:"recentEvents,omitempty"`
	EventPhase    plan.Phase `json:"eventPhase,omitempty"`
	EventAwaiting Awaiting   `json:"eventAwaiting,omitempty"`
}

// Keep appends e to the recent events and drops the oldest until they
// fit MaxRecentEvents and MaxRecentEventBytes.
func (s *EventLogState) Keep(e Event) {
	s.RecentEvents = append(s.RecentEvents, e)
	total := 0
	for _, r := range s.RecentEvents {
		total += r.size()
	}
	drop := 0
	for len(s.RecentEvents)-drop > MaxRecentEvents || (total > MaxRecentEventBytes && len(s.RecentEvents)-drop > 1) {
		total -= s.RecentEvents[drop].size()
		drop++
	}
	if drop > 0 {
		s.RecentEvents = append([]Event(nil), s.RecentEvents[drop:]...)
	}
}

// After returns the recent events whose Seq is over after, and whether
// they reach back to it: false when events after it were dropped.
func (s EventLogState) After(after int64) ([]Event, bool) {
	for i, e := range s.RecentEvents {
		if e.Seq > after {
			return s.RecentEvents[i:], e.Seq == after+1
		}
	}
	return nil, after >= s.EventSeq
}

// EventGapData is the data of an EventGap: the events after After up to
// FirstKept-1 are no longer kept; Standing is the plan's state now.
type EventGapData struct {
	After     int64           `json:"after"`
	FirstKept int64           `json:"firstKept"`
	Standing  json.RawMessage `json:"standing,omitempty"`
}

// ModelText is what the activity of a model call that streams heartbeats
// while the text arrives: the phase and step of the call, how many bytes
// of text arrived so far, and the last MaxModelTextBytes of them. The
// server keeps the last heartbeat with the pending activity, not in
// history; a follower that watches the text reads it from there.
type ModelText struct {
	Phase  string `json:"phase"`
	StepID string `json:"stepId,omitempty"`
	Bytes  int64  `json:"bytes"`
	Text   string `json:"text"`
}

// MaxModelTextBytes bounds ModelText.Text: the tail of the text, cut on a
// rune boundary.
const MaxModelTextBytes = 4 << 10

// ModelTextDelta is the data of an EventModelText: new text of the model
// call running as activity ActivityID's attempt Attempt. Restarted is
// set on the first delta of a new attempt (a worker died or the call was
// retried): the text starts over. Skipped counts bytes that arrived
// between two looks and were no longer in the heartbeat's tail.
type ModelTextDelta struct {
	Phase      string `json:"phase"`
	StepID     string `json:"stepId,omitempty"`
	ActivityID string `json:"activityId"`
	Attempt    int32  `json:"attempt"`
	Text       string `json:"text"`
	Restarted  bool   `json:"restarted,omitempty"`
	Skipped    int64  `json:"skipped,omitempty"`
}
