package signals

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/planmode/planmode/plan"
)

// Checkpoint is the state a run hands to its continuation when it
// continues as new. It is also the run's state while it runs: each part of
// the workflow owns one of the structs embedded here and keeps every value
// of it that must survive continue-as-new there, and the run assembles the
// Checkpoint from them (and splits it back in the continuation), so a field
// added to a part's struct is carried without more code. It lives here
// because the workflow's input carries it, and its JSON is in recorded
// histories: never rename a tag. The embedded structs have no tags of their
// own, so their fields are the Checkpoint's in the JSON, in the order
// MarshalJSON keeps. A run continues as new at a step boundary of the
// executing phase, or while it waits for a selection, its workspace or a
// resume, so the checkpoint holds the options, the selected plan with its
// results and history, the workspace lease, and what the run still owes
// people (skip confirmations, approvals, rejected inputs, a pause).
type Checkpoint struct {
	CycleState
	ExecutionState
	ApprovalState
	InputState
	NotifyState
	LeaseState
	EventLogState
}

// CycleState is the cycle's: where the run is in its phases, what it
// works towards and what it spent.
type CycleState struct {
	// Runs counts the runs before this one in the chain.
	Runs      int        `json:"runs"`
	StartedAt time.Time  `json:"startedAt"`
	Phase     plan.Phase `json:"phase"`
	// Goal is the clarified goal.
	Goal string `json:"goal"`
	// Options carries the options, their ranking, the selection and the
	// feedback given.
	Options    OptionsView `json:"options"`
	SnapshotID string      `json:"snapshotId,omitempty"`
	// ForkedFrom names the plan and step this plan was forked from.
	ForkedFrom *ForkRef   `json:"forkedFrom,omitempty"`
	Usage      plan.Usage `json:"usage"`
	Offline    bool       `json:"offline,omitempty"`
	LastError  string     `json:"lastError,omitempty"`
	// Tools are the worker's approval policy and MCP tools the plan
	// recorded when it started to plan; nil in runs begun before plans
	// recorded them, which gate no call.
	Tools *RecordedTools `json:"tools,omitempty"`
}

// ExecutionState is the executor's: the selected plan with its files, the
// skips waiting for a person and the budget in force.
type ExecutionState struct {
	Plan *plan.Plan `json:"plan,omitempty"`
	// Manifest names the plan's files now: the content-addressed manifest
	// every step's activities bring their folder to first, on whichever
	// worker they run. Empty until execution recorded the files.
	Manifest string `json:"manifest,omitempty"`
	// SkipConfirmations are skip requests still waiting for a person;
	// SkipSeq feeds their ids.
	SkipConfirmations []SkipConfirmation `json:"skipConfirmations,omitempty"`
	SkipSeq           int                `json:"skipSeq,omitempty"`
	// Budget is the budget in force once raise-budget raised it; nil
	// keeps the request's.
	Budget *Budget `json:"budget,omitempty"`
	// BudgetWaived is set once a person resumed after a budget pause.
	BudgetWaived bool `json:"budgetWaived,omitempty"`
	// MaxConcurrent is the most steps that ran at once.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
}

// ApprovalState is the gate's. Approvals are the gated tool calls still
// waiting for a person, carried whole; ApprovalSeq feeds their ids.
// ApprovalDecisions are the decisions made so far, at most
// MaxApprovalDecisions, the oldest let go past it and counted in
// ApprovalDecisionsDropped.
type ApprovalState struct {
	Approvals                []ToolApproval     `json:"approvals,omitempty"`
	ApprovalSeq              int                `json:"approvalSeq,omitempty"`
	ApprovalDecisions        []ApprovalDecision `json:"approvalDecisions,omitempty"`
	ApprovalDecisionsDropped int                `json:"approvalDecisionsDropped,omitempty"`
}

// InputState is the controls': the inputs they refused and the pause.
type InputState struct {
	Rejected    []Rejection `json:"rejected,omitempty"`
	Paused      bool        `json:"paused,omitempty"`
	PauseReason string      `json:"pauseReason,omitempty"`
	// PausedFor is the time the run spent paused, up to PausedAt when it
	// is paused now; elapsed running time leaves both out.
	PausedFor plan.Duration `json:"pausedFor,omitempty"`
	PausedAt  *time.Time    `json:"pausedAt,omitempty"`
}

// NotifyState is the notifier's.
type NotifyState struct {
	// NotifySeq numbers the webhook events sent so far, so idempotency
	// keys stay unique over the chain of runs.
	NotifySeq int `json:"notifySeq,omitempty"`
	// NoReceiver is set once a delivery found no webhook configured, so
	// the continuation schedules no deliveries to nowhere either.
	NoReceiver bool `json:"noReceiver,omitempty"`
}

// LeaseState is the workspace lease's.
type LeaseState struct {
	// Lease is the run's lease on its workspace, once acquired; the last
	// run of the chain releases it.
	Lease *WorkspaceLease `json:"lease,omitempty"`
}

// checkpointFields is the order of a checkpoint's fields in its JSON: the
// order recorded histories hold, from when Checkpoint was one struct. The
// parts' structs group the fields by owner; MarshalJSON writes them in
// this order all the same, so the bytes a run hands on do not depend on
// which part owns a field. A new field goes at the end
// (TestCheckpointJSONTags checks that every field is listed).
var checkpointFields = []string{
	"runs", "startedAt", "phase", "goal", "options", "plan", "snapshotId", "manifest", "forkedFrom",
	"usage", "offline", "lastError", "skipConfirmations", "skipSeq", "rejected", "paused", "pauseReason",
	"approvals", "approvalSeq", "approvalDecisions", "approvalDecisionsDropped", "tools", "budget",
	"budgetWaived", "notifySeq", "noReceiver", "pausedFor", "pausedAt", "maxConcurrent", "lease",
	"eventSeq", "recentEvents", "eventPhase", "eventAwaiting",
}

// MarshalJSON encodes c as encoding/json does, its fields in
// checkpointFields order; a field the list lacks comes after them.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	type parts Checkpoint // without the methods, so no recursion
	b, err := json.Marshal(parts(c))
	if err != nil {
		return nil, err
	}
	return orderFields(b, checkpointFields)
}

// orderFields rewrites the JSON object b with the members order names
// first, in that order, and the others after them as they came; every
// value keeps its bytes.
func orderFields(b []byte, order []string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		keys = append(keys, k)
		vals[k] = v
	}
	out := make([]byte, 0, len(b))
	out = append(out, '{')
	add := func(k string) error {
		v, ok := vals[k]
		if !ok {
			return nil
		}
		delete(vals, k)
		key, err := json.Marshal(k)
		if err != nil {
			return err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), v...)
		return nil
	}
	for _, k := range append(slices.Clip(order), keys...) {
		if err := add(k); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

// checkpointProblems lists what makes a request's checkpoint unusable. A
// run continues as new while executing a selected plan, or while it waits
// for a selection among its options or for its workspace; any other
// checkpoint was not written by a run: refusing it here fails the start
// with a reason instead of crashing every workflow task.
func checkpointProblems(cp *Checkpoint) []string {
	if cp == nil {
		return nil
	}
	switch {
	case cp.Plan != nil:
	case cp.Phase == plan.PhaseAwaitingSelection && len(cp.Options.Options) > 0 && cp.Options.SelectedID == "":
	case cp.Phase == plan.PhaseAwaitingWorkspace && cp.Lease == nil:
	default:
		return []string{"checkpoint carries no plan: callers leave checkpoint empty"}
	}
	return nil
}
