// Package plan holds planmode's domain: tasks, plans, steps, options and the
// rules that govern them (validation, edits, ranking, the mode machine, the
// ready set). It is pure: no Temporal, no network, no clock and no randomness.
// Times and ids are passed in by the caller, so every function here behaves
// the same inside a deterministic workflow and in a plain unit test.
package plan

import "time"

// Priority is how urgent a task is.
type Priority string

// Priorities, lowest first.
const (
	PriorityLow      Priority = "low"
	PriorityMedium   Priority = "medium"
	PriorityHigh     Priority = "high"
	PriorityCritical Priority = "critical"
)

// Complexity rates how hard a plan is to carry out.
type Complexity string

// Complexities, simplest first.
const (
	ComplexityLow      Complexity = "low"
	ComplexityMedium   Complexity = "medium"
	ComplexityHigh     Complexity = "high"
	ComplexityVeryHigh Complexity = "very_high"
)

// RiskImpact is how bad a risk is when it happens.
type RiskImpact string

// Risk impacts, mildest first.
const (
	ImpactLow      RiskImpact = "low"
	ImpactMedium   RiskImpact = "medium"
	ImpactHigh     RiskImpact = "high"
	ImpactCritical RiskImpact = "critical"
)

// RiskLikelihood is how likely a risk is to happen.
type RiskLikelihood string

// Risk likelihoods, least likely first.
const (
	LikelihoodLow    RiskLikelihood = "low"
	LikelihoodMedium RiskLikelihood = "medium"
	LikelihoodHigh   RiskLikelihood = "high"
)

// StepKind says what sort of work a step is — analysis, generation, a
// file operation, validation — for people and for ranking. It does not
// say how the step runs: that is its Action.
type StepKind string

// Step kinds.
const (
	KindFileOperation  StepKind = "file_operation"
	KindShellCommand   StepKind = "shell_command"
	KindCodeGeneration StepKind = "code_generation"
	KindCodeAnalysis   StepKind = "code_analysis"
	KindValidation     StepKind = "validation"
	KindTesting        StepKind = "testing"
)

// Action says how a step is carried out: one completion (llm), one tool
// call (tool), or the model calling tools in a loop (agent).
type Action string

// Actions.
const (
	// ActionLLM is one chat completion.
	ActionLLM Action = "llm"
	// ActionTool is one deterministic tool call.
	ActionTool Action = "tool"
	// ActionAgent is an LLM with tools in a loop, capped by max iterations.
	ActionAgent Action = "agent"
)

// StepStatus is where a step is in its life.
type StepStatus string

// Step statuses.
const (
	StepPending   StepStatus = "pending"
	StepRunning   StepStatus = "running"
	StepRetrying  StepStatus = "retrying"
	StepCompleted StepStatus = "completed"
	StepFailed    StepStatus = "failed"
	StepSkipped   StepStatus = "skipped"
	StepCancelled StepStatus = "cancelled"
)

// Done reports whether the status is final.
func (s StepStatus) Done() bool {
	switch s {
	case StepCompleted, StepFailed, StepSkipped, StepCancelled:
		return true
	}
	return false
}

// PlanStatus is where a plan is in its life.
type PlanStatus string

// Plan statuses.
const (
	PlanDraft     PlanStatus = "draft"
	PlanReady     PlanStatus = "ready"
	PlanRunning   PlanStatus = "running"
	PlanPaused    PlanStatus = "paused"
	PlanCompleted PlanStatus = "completed"
	PlanFailed    PlanStatus = "failed"
	PlanCancelled PlanStatus = "cancelled"
)

// Actor names who asked for a change to a plan.
type Actor string

// Actors.
const (
	ActorUser       Actor = "user"
	ActorReflection Actor = "reflection"
	ActorSystem     Actor = "system"
)

// Task is what a user asked for.
type Task struct {
	ID           string      `json:"id"`
	Goal         string      `json:"goal"`
	Requirements []string    `json:"requirements,omitempty"`
	Constraints  []string    `json:"constraints,omitempty"`
	Priority     Priority    `json:"priority,omitempty"`
	Deadline     *time.Time  `json:"deadline,omitempty"`
	Context      TaskContext `json:"context"`
	// History is the conversation the task came from, oldest first, so
	// that clarifying and planning know what was already said.
	History []Message `json:"history,omitempty"`
}

// MessageRole says who wrote a message of an earlier conversation.
type MessageRole string

// Message roles.
const (
	MessageUser      MessageRole = "user"
	MessageAssistant MessageRole = "assistant"
	MessageSystem    MessageRole = "system"
)

// Message is one message of the conversation a task came from.
type Message struct {
	Role    MessageRole `json:"role"`
	Content string      `json:"content"`
}

// TaskContext is what the planner knows of the task's surroundings.
type TaskContext struct {
	WorkspaceRoot string            `json:"workspaceRoot,omitempty"`
	CurrentFiles  []string          `json:"currentFiles,omitempty"`
	RecentChanges []string          `json:"recentChanges,omitempty"`
	Dependencies  []string          `json:"dependencies,omitempty"`
	Environment   map[string]string `json:"environment,omitempty"`
}

// Risk is something that may go wrong with a plan.
type Risk struct {
	Description string         `json:"description"`
	Impact      RiskImpact     `json:"impact"`
	Likelihood  RiskLikelihood `json:"likelihood"`
	Mitigation  string         `json:"mitigation,omitempty"`
}

// Estimates are what a plan is expected to cost.
type Estimates struct {
	Duration   Duration   `json:"duration"`
	Complexity Complexity `json:"complexity"`
	// Confidence is between 0 and 1.
	Confidence float64 `json:"confidence"`
	Tokens     int     `json:"tokens,omitempty"`
	CostUSD    float64 `json:"costUSD,omitempty"`
}

// Usage counts LLM tokens and their cost.
type Usage struct {
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	TotalTokens      int     `json:"totalTokens"`
	CostUSD          float64 `json:"costUSD"`
	Calls            int     `json:"calls"`
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		CostUSD:          u.CostUSD + o.CostUSD,
		Calls:            u.Calls + o.Calls,
	}
}

// StepConfig holds the settings of a step's action; exactly the one that
// matches Step.Action must be set.
type StepConfig struct {
	LLM   *LLMConfig   `json:"llm,omitempty"`
	Tool  *ToolConfig  `json:"tool,omitempty"`
	Agent *AgentConfig `json:"agent,omitempty"`
}

// LLMConfig configures an llm step: one completion.
type LLMConfig struct {
	Prompt       string   `json:"prompt"`
	Model        string   `json:"model,omitempty"`
	Temperature  *float64 `json:"temperature,omitempty"`
	MaxTokens    int      `json:"maxTokens,omitempty"`
	SystemPrompt string   `json:"systemPrompt,omitempty"`
}

// ToolConfig configures a tool step: one tool call.
type ToolConfig struct {
	Name           string         `json:"name"`
	Params         map[string]any `json:"params,omitempty"`
	ValidateOutput bool           `json:"validateOutput,omitempty"`
}

// AgentConfig configures an agent step: an LLM calling tools in a loop.
type AgentConfig struct {
	Prompt string   `json:"prompt"`
	Tools  []string `json:"tools,omitempty"`
	// MaxIterations caps the LLM turns; zero means the plan's default.
	MaxIterations int `json:"maxIterations,omitempty"`
}

// FileOp is what happened to a file.
type FileOp string

// File operations.
const (
	FileCreated  FileOp = "created"
	FileModified FileOp = "modified"
	FileDeleted  FileOp = "deleted"
)

// FileChange records one file a step changed.
type FileChange struct {
	Path         string `json:"path"`
	Op           FileOp `json:"op"`
	LinesAdded   int    `json:"linesAdded,omitempty"`
	LinesRemoved int    `json:"linesRemoved,omitempty"`
}

// StepResult is what running a step produced.
type StepResult struct {
	Success bool   `json:"success"`
	Output  string `json:"output,omitempty"`
	// OutputTruncated is set when Output was cut to keep history small.
	OutputTruncated bool         `json:"outputTruncated,omitempty"`
	Error           string       `json:"error,omitempty"`
	Duration        Duration     `json:"duration,omitempty"`
	FilesChanged    []FileChange `json:"filesChanged,omitempty"`
	CommandsRun     int          `json:"commandsRun,omitempty"`
	Usage           Usage        `json:"usage"`
	Iterations      int          `json:"iterations,omitempty"`
	// IterationLimitReached is set when an agent step stopped at its cap.
	IterationLimitReached bool `json:"iterationLimitReached,omitempty"`
	// Attempts counts tries, the first included.
	Attempts int `json:"attempts,omitempty"`
	// FallbackUsed names the fallback step that ran in this step's place.
	FallbackUsed string `json:"fallbackUsed,omitempty"`
	// OutputRef is the absolute path of the file holding the whole output
	// when Output was truncated and the worker keeps full outputs.
	OutputRef string `json:"outputRef,omitempty"`
	// EndedPlan is set when the step ended the whole plan early (a tool
	// call of it, finish_plan, asked to): the steps not yet started were
	// skipped and Output holds the reason.
	EndedPlan bool `json:"endedPlan,omitempty"`
	// Manifest names the plan's files as they were once the step ended
	// (a content-addressed workspace manifest): what a rollback to the
	// step restores and a fork from it starts with. Empty for a step that
	// ran before the plan's files were recorded.
	Manifest string `json:"manifest,omitempty"`
	// Conflicts lists the paths this step, run beside others in a copy
	// of its own, changed in ways that clash with what the steps merged
	// before it changed, when the step could not run again on the merged
	// files: the plan's files keep theirs, this step's own stay in its
	// manifest (ConflictManifest), and the step failed.
	Conflicts        []string `json:"conflicts,omitempty"`
	ConflictManifest string   `json:"conflictManifest,omitempty"`
	// Clashes records the tries of this step whose changes clashed with
	// a step's that ran beside it, oldest first.
	Clashes []Clash `json:"clashes,omitempty"`
}

// Clash is one try of a step whose changes, made in a copy of the plan's
// files beside other steps, clashed with what merged before them.
type Clash struct {
	At time.Time `json:"at"`
	// Attempt is the try that clashed, 1-based.
	Attempt int `json:"attempt"`
	// Paths are the clashing paths, at most a bounded few; More counts
	// the others.
	Paths []string `json:"paths"`
	More  int      `json:"more,omitempty"`
	// Manifest holds that try's own files, reachable by rollback and
	// fork.
	Manifest string `json:"manifest"`
	// Rerun is set when the step ran again on the merged files, a try
	// that does not count against its MaxRetries.
	Rerun bool `json:"rerun,omitempty"`
	// Why says why it did not run again, when it did not.
	Why string `json:"why,omitempty"`
}

// Step is one unit of work in a plan: what it is (title, kind, estimate),
// how it runs (action and its config, required tools), how it copes with
// failure (retries, fallback, skip condition), and what happened (status,
// result, times).
type Step struct {
	ID string `json:"id"`
	// Number is the 1-based display order, kept current by every edit.
	Number        int        `json:"number"`
	Title         string     `json:"title"`
	Description   string     `json:"description,omitempty"`
	Kind          StepKind   `json:"kind,omitempty"`
	Action        Action     `json:"action"`
	Config        StepConfig `json:"config"`
	DependsOn     []string   `json:"dependsOn,omitempty"`
	RequiredTools []string   `json:"requiredTools,omitempty"`
	MaxRetries    int        `json:"maxRetries,omitempty"`
	RetryDelay    Duration   `json:"retryDelay,omitempty"`
	Skippable     bool       `json:"skippable,omitempty"`
	// SkipCondition is an expression over earlier results; when it holds the
	// step is skipped. See EvalCondition.
	SkipCondition string `json:"skipCondition,omitempty"`
	// FallbackStepID names a step that runs in this one's place when it fails
	// after its retries. A step used as a fallback runs only that way.
	FallbackStepID string      `json:"fallbackStepId,omitempty"`
	Estimated      Duration    `json:"estimated,omitempty"`
	Status         StepStatus  `json:"status"`
	Result         *StepResult `json:"result,omitempty"`
	StartedAt      *time.Time  `json:"startedAt,omitempty"`
	EndedAt        *time.Time  `json:"endedAt,omitempty"`
	// Note says why the step ended as it did when no result says it (a skip
	// reason, a cancellation).
	Note string `json:"note,omitempty"`
}

// UpdateType names what a plan update did.
type UpdateType string

// Update types.
const (
	UpdateInsert UpdateType = "insert"
	UpdateAppend UpdateType = "append"
	UpdateRemove UpdateType = "remove"
	UpdateUpdate UpdateType = "update"
	UpdateSkip   UpdateType = "skip"
	UpdateReplan UpdateType = "replan"
)

// Update is one entry of a plan's update history: who changed what, when
// and why.
type Update struct {
	At      time.Time  `json:"at"`
	Type    UpdateType `json:"type"`
	StepID  string     `json:"stepId,omitempty"`
	Actor   Actor      `json:"actor"`
	Reason  string     `json:"reason,omitempty"`
	Version int        `json:"version"`
}

// Plan is an ordered list of steps with its estimates, risks and history.
type Plan struct {
	ID          string     `json:"id"`
	TaskID      string     `json:"taskId,omitempty"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Steps       []Step     `json:"steps"`
	Resources   []string   `json:"resources,omitempty"`
	Risks       []Risk     `json:"risks,omitempty"`
	Estimates   Estimates  `json:"estimates"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	Version     int        `json:"version"`
	Status      PlanStatus `json:"status"`
	// Template names the template the plan came from, if any.
	Template      string   `json:"template,omitempty"`
	UpdateHistory []Update `json:"updateHistory,omitempty"`
	// UpdateHistoryDropped counts the oldest entries let go past
	// MaxUpdateHistory.
	UpdateHistoryDropped int `json:"updateHistoryDropped,omitempty"`
	// NextStepSeq feeds ids for steps added without one ("s<N>"), so that
	// ids stay deterministic without a random source.
	NextStepSeq int `json:"nextStepSeq,omitempty"`
}

// Option is one way to carry out a task, presented for selection.
type Option struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Plan        Plan     `json:"plan"`
	Pros        []string `json:"pros,omitempty"`
	Cons        []string `json:"cons,omitempty"`
	Rank        int      `json:"rank"`
	Score       float64  `json:"score"`
	// Scores holds the score per ranking criterion.
	Scores      map[string]float64 `json:"scores,omitempty"`
	Recommended bool               `json:"recommended"`
}

// DroppedOption records an option that failed validation and was left out.
type DroppedOption struct {
	Title  string   `json:"title"`
	Reason string   `json:"reason"`
	Issues []string `json:"issues,omitempty"`
}

// Metrics are a plan's execution metrics: steps by outcome, files, lines
// and commands, errors and warnings.
type Metrics struct {
	StepsCompleted int `json:"stepsCompleted"`
	StepsFailed    int `json:"stepsFailed"`
	StepsSkipped   int `json:"stepsSkipped"`
	FilesCreated   int `json:"filesCreated"`
	FilesModified  int `json:"filesModified"`
	FilesDeleted   int `json:"filesDeleted"`
	LinesChanged   int `json:"linesChanged"`
	CommandsRun    int `json:"commandsRun"`
	Errors         int `json:"errors"`
	Warnings       int `json:"warnings"`
	// MaxConcurrent is the most steps that ran side by side.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
}
