package signals

import (
	"time"

	"github.com/planmode/planmode/plan"
)

// SelectionMode is how an option is chosen.
type SelectionMode string

// Selection modes.
const (
	// SelectManual waits for a select-option (optionally with a timeout).
	SelectManual SelectionMode = "manual"
	// SelectAuto takes the recommended option at once.
	SelectAuto SelectionMode = "auto"
)

// TimeoutOutcome is what happens when a wait for a person times out.
type TimeoutOutcome string

// Timeout outcomes.
const (
	OnTimeoutRecommended TimeoutOutcome = "recommended"
	OnTimeoutCancel      TimeoutOutcome = "cancel"
	OnTimeoutApprove     TimeoutOutcome = "approve"
	OnTimeoutDeny        TimeoutOutcome = "deny"
)

// ExecutionMode is gollem's skip behaviour.
type ExecutionMode string

// Execution modes.
const (
	// ExecComplete never skips without a person's confirmation.
	ExecComplete ExecutionMode = "complete"
	// ExecBalanced skips at once when confidence reaches the threshold and
	// asks a person below it.
	ExecBalanced ExecutionMode = "balanced"
	// ExecEfficient applies every skip at or above the threshold at once and
	// asks for the rest only when confirmTimeout is set.
	ExecEfficient ExecutionMode = "efficient"
)

// BudgetAction is what happens when a budget is exceeded.
type BudgetAction string

// Budget actions.
const (
	BudgetStop  BudgetAction = "stop"
	BudgetPause BudgetAction = "pause"
)

// SelectionPolicy configures the selection phase.
type SelectionPolicy struct {
	Mode SelectionMode `json:"mode,omitempty"`
	// Timeout bounds a manual wait; zero waits for ever.
	Timeout   plan.Duration  `json:"timeout,omitempty"`
	OnTimeout TimeoutOutcome `json:"onTimeout,omitempty"`
}

// ExecutionPolicy configures the act phase.
type ExecutionPolicy struct {
	Mode                    ExecutionMode `json:"mode,omitempty"`
	SkipConfidenceThreshold float64       `json:"skipConfidenceThreshold,omitempty"`
	// ConfirmTimeout bounds a wait for a skip confirmation; zero waits for ever.
	ConfirmTimeout plan.Duration `json:"confirmTimeout,omitempty"`
	// OnConfirmTimeout is approve or deny (default deny: do the work).
	OnConfirmTimeout     TimeoutOutcome `json:"onConfirmTimeout,omitempty"`
	MaxIterationsPerStep int            `json:"maxIterationsPerStep,omitempty"`
	MaxSteps             int            `json:"maxSteps,omitempty"`
	Parallelism          int            `json:"parallelism,omitempty"`
	// HeartbeatTimeout is how long an LLM or tool activity may go without
	// a heartbeat before Temporal retries it, on another worker if its
	// worker died: shorter fails over faster. Zero means
	// DefaultHeartbeatTimeout; at least MinHeartbeatTimeout.
	HeartbeatTimeout plan.Duration `json:"heartbeatTimeout,omitempty"`
}

// ClarifyPolicy configures the clarify phase.
type ClarifyPolicy struct {
	AskQuestions bool          `json:"askQuestions,omitempty"`
	Timeout      plan.Duration `json:"timeout,omitempty"`
}

// Budget bounds tokens and cost; zero means no bound.
type Budget struct {
	MaxTokens  int          `json:"maxTokens,omitempty"`
	MaxCostUSD float64      `json:"maxCostUSD,omitempty"`
	OnExceed   BudgetAction `json:"onExceed,omitempty"`
}

// NotifyPolicy says where a plan's events go.
type NotifyPolicy struct {
	// WebhookURL receives the plan's events as signed JSON POSTs; empty uses
	// the worker's configured URL, if any. The signing secret stays in the
	// worker's configuration: it never travels in workflow history.
	WebhookURL string `json:"webhookURL,omitempty"`
}

// StartRequest is the PlanMode workflow's input. Only Goal is required.
type StartRequest struct {
	Goal         string   `json:"goal"`
	Requirements []string `json:"requirements,omitempty"`
	Constraints  []string `json:"constraints,omitempty"`
	// Priority orders the plan's tasks against other plans' on a busy
	// task queue (PriorityKey): low, medium (the default), high or
	// critical.
	Priority plan.Priority `json:"priority,omitempty"`
	// Tenant is the plan's fairness key: plans of one tenant share the
	// task queue's dispatch fairly with other tenants' (FairnessKey). Empty
	// takes the identity of the client that started the plan. At most
	// MaxNameBytes, no control characters.
	Tenant string `json:"tenant,omitempty"`
	// Workspace is the folder the plan works in, under the worker's
	// workspace.root (relative to it, or absolute inside it). Empty means
	// the plan's own folder there, plan.DefaultWorkspace of its workflow
	// id, created when the plan starts. No two open plans share files: a
	// workspace that is, holds or lies inside another open plan's is
	// refused, or waited for (OnBusy).
	Workspace string `json:"workspace,omitempty"`
	// OnBusy is what the plan does when another open plan holds its
	// workspace: refuse (the default: it fails at once with
	// ErrorTypeInvalidRequest naming that plan) or wait until it is free.
	OnBusy BusyPolicy `json:"onBusy,omitempty"`
	// Template names a built-in plan template (plan.TemplateNames), or
	// plan.TemplateAuto to let the goal choose one; empty plans with the
	// model. Validate refuses any other name.
	Template    string          `json:"template,omitempty"`
	OptionCount int             `json:"optionCount,omitempty"`
	Selection   SelectionPolicy `json:"selection"`
	Execution   ExecutionPolicy `json:"execution"`
	Clarify     ClarifyPolicy   `json:"clarify"`
	Budget      Budget          `json:"budget"`
	Notify      NotifyPolicy    `json:"notify"`
	// Approval tightens the worker's approval rules for tool calls and
	// sets how long a gated call waits and what its timeout does.
	Approval     ApprovalPolicy `json:"approval,omitzero"`
	SystemPrompt string         `json:"systemPrompt,omitempty"`
	// PhasePrompts are extra system prompts per phase name (clarifying,
	// planning, executing, reflecting, summarizing).
	PhasePrompts map[string]string `json:"phasePrompts,omitempty"`
	// History is the conversation the plan starts from, oldest first: at
	// most MaxHistoryMessages messages and MaxHistoryBytes of content.
	History []plan.Message `json:"history,omitempty"`
	// Ranking weighs the criteria the options are ranked by (plan.RankBy);
	// empty ranks them by the default formula (plan.Rank).
	Ranking []plan.Criterion `json:"ranking,omitempty"`
	// Plan, when set, is the plan to run: the run skips clarification,
	// option generation and selection and executes it at once, as the one
	// option ExternalOptionID. It is validated like an edit, against the
	// run's execution.maxSteps and the built-in tools.
	Plan *ExternalPlan `json:"plan,omitempty"`
	// Fork starts the plan from another plan's files as they were after
	// one of its steps (see ForkRef): with the goal empty or the parent's,
	// it goes on with the parent's steps not done after that one; with
	// another goal it plans afresh on those files. The parent is untouched.
	Fork *ForkRef `json:"fork,omitempty"`
	// Deadline ends the plan, running steps cancelled and summarized, at a
	// duration from the start ("2h") or an RFC 3339 time.
	Deadline Deadline `json:"deadline,omitempty"`
	// Checkpoint carries a run's state across continue-as-new; callers leave
	// it empty.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`

	// unknown is the first field of the JSON this request was decoded
	// from that it does not have, if any (see UnknownFields).
	unknown string
}

// BusyPolicy is what a plan does when its workspace is held by another
// open plan.
type BusyPolicy string

// Busy policies.
const (
	// OnBusyRefuse fails the plan at once, naming the plan that holds the
	// workspace.
	OnBusyRefuse BusyPolicy = "refuse"
	// OnBusyWait waits until the workspace is free, trying again with a
	// backoff of up to a minute; PlanAwaiting says "workspace" meanwhile.
	OnBusyWait BusyPolicy = "wait"
)

// Defaults used when a StartRequest leaves a field zero.
const (
	DefaultOptionCount             = 3
	DefaultSkipConfidenceThreshold = 0.8
	DefaultMaxIterationsPerStep    = 16
	DefaultMaxSteps                = 50
	DefaultHeartbeatTimeout        = plan.Duration(30 * time.Second)
	// DefaultParallelism is how many independent steps run at once. A
	// step's time goes to waiting (on the model, a tool, a command), not
	// to the worker's CPU, so running independent steps side by side
	// shortens a plan by about their number; a plan only runs steps
	// together when neither depends on the other. Four keeps the
	// provider's rate limits and the shared workspace in mind: steps that
	// write the same files can still conflict, which is why a step that
	// edits files depends on the steps it builds on. 1 restores strictly
	// one step at a time; MaxParallelism bounds it.
	DefaultParallelism = 4
)

// WithDefaults returns r with every zero policy field set to its default.
func (r StartRequest) WithDefaults() StartRequest {
	if r.OptionCount == 0 {
		r.OptionCount = DefaultOptionCount
	}
	if r.Priority == "" {
		r.Priority = plan.PriorityMedium
	}
	if r.Selection.Mode == "" {
		r.Selection.Mode = SelectManual
	}
	if r.Selection.OnTimeout == "" {
		r.Selection.OnTimeout = OnTimeoutRecommended
	}
	if r.Execution.Mode == "" {
		r.Execution.Mode = ExecBalanced
	}
	if r.Execution.SkipConfidenceThreshold == 0 {
		r.Execution.SkipConfidenceThreshold = DefaultSkipConfidenceThreshold
	}
	if r.Execution.OnConfirmTimeout == "" {
		r.Execution.OnConfirmTimeout = OnTimeoutDeny
	}
	if r.Execution.MaxIterationsPerStep == 0 {
		r.Execution.MaxIterationsPerStep = DefaultMaxIterationsPerStep
	}
	if r.Execution.MaxSteps == 0 {
		r.Execution.MaxSteps = DefaultMaxSteps
	}
	if r.Execution.Parallelism == 0 {
		r.Execution.Parallelism = DefaultParallelism
	}
	if r.Execution.HeartbeatTimeout == 0 {
		r.Execution.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if r.Budget.OnExceed == "" {
		r.Budget.OnExceed = BudgetStop
	}
	if r.OnBusy == "" {
		r.OnBusy = OnBusyRefuse
	}
	return r
}

// Status is how a run ended.
type Status string

// Statuses.
const (
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
	// StatusAnswered means clarification answered the goal directly.
	StatusAnswered Status = "answered"
)

// Result is the PlanMode workflow's output.
type Result struct {
	Status Status `json:"status"`
	// Goal is the plan's clarified goal.
	Goal             string       `json:"goal,omitempty"`
	Summary          string       `json:"summary"`
	Plan             *plan.Plan   `json:"plan,omitempty"`
	SelectedOptionID string       `json:"selectedOptionId,omitempty"`
	Metrics          plan.Metrics `json:"metrics"`
	Usage            plan.Usage   `json:"usage"`
	Tokens           int          `json:"tokens"`
	CostUSD          float64      `json:"costUSD"`
	Error            string       `json:"error,omitempty"`
	// BudgetExceeded says which budget stopped the run, if one did.
	BudgetExceeded string `json:"budgetExceeded,omitempty"`
	// Offline is set when the offline model played the LLM.
	Offline bool `json:"offline,omitempty"`
	// SnapshotID and Workspace name the snapshot taken before execution
	// and the workspace it is of, so that a PlanRollback can restore it
	// after the plan ended; empty when the run had no workspace or never
	// executed.
	SnapshotID string `json:"snapshotId,omitempty"`
	Workspace  string `json:"workspace,omitempty"`
	// Manifest names the plan's files as it left them, so that a
	// rollback after the end can tell what changed since.
	Manifest string `json:"manifest,omitempty"`
	// ForkedFrom names the plan and step this plan was forked from.
	ForkedFrom *ForkRef `json:"forkedFrom,omitempty"`
	// StartedAt is when the plan started (its first run); Elapsed the
	// time it ran until it ended, PausedFor (the time it spent paused)
	// left out. With them a closed plan's progress is read from its
	// Result (Result.Progress) rather than by a query, which would replay
	// its whole history on a worker.
	StartedAt *time.Time    `json:"startedAt,omitempty"`
	Elapsed   plan.Duration `json:"elapsed,omitempty"`
	PausedFor plan.Duration `json:"pausedFor,omitempty"`
}

// Progress is the progress of the plan that ended with r, as its
// progress query answers it once the plan has ended.
func (r Result) Progress() Progress {
	p := Progress{
		Phase:     r.Status.Phase(),
		Mode:      plan.ModeNormal,
		Awaiting:  AwaitingNone,
		Elapsed:   r.Elapsed,
		PausedFor: r.PausedFor,
		Usage:     r.Usage,
		Tokens:    r.Tokens,
		CostUSD:   r.CostUSD,
		LastError: r.Error,
		Offline:   r.Offline,
	}
	if r.StartedAt != nil {
		p.StartedAt = *r.StartedAt
	}
	if r.Plan != nil {
		prog := r.Plan.Progress()
		p.Totals, p.Percent = prog.Totals(), prog.PercentOfWork()
		p.MaxConcurrent = r.Metrics.MaxConcurrent
	}
	return p
}

// Phase is the terminal phase of a run that ends with status s: an
// answered plan completed, and a status that is none of these failed.
func (s Status) Phase() plan.Phase {
	switch s {
	case StatusCompleted, StatusAnswered:
		return plan.PhaseCompleted
	case StatusCancelled:
		return plan.PhaseCancelled
	}
	return plan.PhaseFailed
}
