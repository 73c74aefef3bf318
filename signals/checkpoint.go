package signals

import (
	"time"

	"github.com/planmode/planmode/plan"
)

// Checkpoint is the state a run hands to its continuation when it
// continues as new. It is also the run's state while it runs: the workflow
// keeps every value that must survive continue-as-new in one Checkpoint and
// hands it on whole, so a field added here is carried without more code.
// It lives here because the workflow's input carries it, and its JSON is in
// recorded histories: never rename a tag. A run continues as new at a step
// boundary of the executing phase, or while it waits for a selection, its
// workspace or a resume, so the checkpoint holds the options, the selected
// plan with its results and history, the workspace lease, and what the run
// still owes people (skip confirmations, rejected inputs, a pause).
type Checkpoint struct {
	// Runs counts the runs before this one in the chain.
	Runs      int        `json:"runs"`
	StartedAt time.Time  `json:"startedAt"`
	Phase     plan.Phase `json:"phase"`
	// Goal is the clarified goal.
	Goal string `json:"goal"`
	// Options carries the options, their ranking, the selection and the
	// feedback given.
	Options    OptionsView `json:"options"`
	Plan       *plan.Plan  `json:"plan,omitempty"`
	SnapshotID string      `json:"snapshotId,omitempty"`
	// Manifest names the plan's files now: the content-addressed manifest
	// every step's activities bring their folder to first, on whichever
	// worker they run. Empty until execution recorded the files.
	Manifest string `json:"manifest,omitempty"`
	// ForkedFrom names the plan and step this plan was forked from.
	ForkedFrom *ForkRef   `json:"forkedFrom,omitempty"`
	Usage      plan.Usage `json:"usage"`
	Offline    bool       `json:"offline,omitempty"`
	LastError  string     `json:"lastError,omitempty"`
	// SkipConfirmations are skip requests still waiting for a person;
	// SkipSeq feeds their ids.
	SkipConfirmations []SkipConfirmation `json:"skipConfirmations,omitempty"`
	SkipSeq           int                `json:"skipSeq,omitempty"`
	Rejected          []Rejection        `json:"rejected,omitempty"`
	Paused            bool               `json:"paused,omitempty"`
	PauseReason       string             `json:"pauseReason,omitempty"`
	// Approvals are the gated tool calls still waiting for a person,
	// carried whole; ApprovalSeq feeds their ids. ApprovalDecisions are
	// the decisions made so far, at most MaxApprovalDecisions, the oldest
	// let go past it and counted in ApprovalDecisionsDropped.
	Approvals                []ToolApproval     `json:"approvals,omitempty"`
	ApprovalSeq              int                `json:"approvalSeq,omitempty"`
	ApprovalDecisions        []ApprovalDecision `json:"approvalDecisions,omitempty"`
	ApprovalDecisionsDropped int                `json:"approvalDecisionsDropped,omitempty"`
	// Tools are the worker's approval policy and MCP tools the plan
	// recorded when it started to plan; nil in runs begun before plans
	// recorded them, which gate no call.
	Tools *RecordedTools `json:"tools,omitempty"`
	// Budget is the budget in force once raise-budget raised it; nil
	// keeps the request's.
	Budget *Budget `json:"budget,omitempty"`
	// BudgetWaived is set once a person resumed after a budget pause.
	BudgetWaived bool `json:"budgetWaived,omitempty"`
	// NotifySeq numbers the webhook events sent so far, so idempotency
	// keys stay unique over the chain of runs.
	NotifySeq int `json:"notifySeq,omitempty"`
	// NoReceiver is set once a delivery found no webhook configured, so
	// the continuation schedules no deliveries to nowhere either.
	NoReceiver bool `json:"noReceiver,omitempty"`
	// PausedFor is the time the run spent paused, up to PausedAt when it
	// is paused now; elapsed running time leaves both out.
	PausedFor plan.Duration `json:"pausedFor,omitempty"`
	PausedAt  *time.Time    `json:"pausedAt,omitempty"`
	// MaxConcurrent is the most steps that ran at once.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
	// Lease is the run's lease on its workspace, once acquired; the last
	// run of the chain releases it.
	Lease *WorkspaceLease `json:"lease,omitempty"`
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
