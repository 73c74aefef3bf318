package activities

import (
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/prompts"
	"github.com/planmode/planmode/tools"
)

// LLM phases as named in prompts, per-phase settings and usage counts
// (the llm package's).
const (
	PhaseClarify   = llm.PhaseClarify
	PhasePlan      = llm.PhasePlan
	PhaseExecute   = llm.PhaseExecute
	PhaseAgent     = llm.PhaseAgent
	PhaseReflect   = llm.PhaseReflect
	PhaseSummarize = llm.PhaseSummarize
)

// ToolSpec is a tool as the model is offered it: name, description and
// JSON schema. An alias, so the workflow names it without the llm package.
type ToolSpec = llm.ToolSpec

// Prompts are the caller's system prompts: one for every phase and extra
// ones per phase name (clarifying, planning, executing, reflecting,
// summarizing). The prompts package owns their shape.
type Prompts = prompts.Custom

// ClarifyInput asks to clarify a task's goal.
type ClarifyInput struct {
	Task plan.Task `json:"task"`
	// AskQuestions allows the reply to ask the user questions.
	AskQuestions bool `json:"askQuestions"`
	// Answers are the user's answers to earlier questions.
	Answers map[string]string `json:"answers,omitempty"`
	Prompts Prompts           `json:"prompts"`
}

// ClarifyOutput is the clarified goal, a direct answer (no plan needed) or
// questions for the user.
type ClarifyOutput struct {
	Goal         string     `json:"goal"`
	DirectAnswer string     `json:"directAnswer,omitempty"`
	Questions    []string   `json:"questions,omitempty"`
	Usage        plan.Usage `json:"usage"`
	Offline      bool       `json:"offline,omitempty"`
}

// OptionsInput asks for plan options.
type OptionsInput struct {
	Task  plan.Task `json:"task"`
	Count int       `json:"count"`
	// Revision numbers this generation; option ids are derived from it.
	Revision int `json:"revision"`
	// Feedback and Previous are set when refining.
	Feedback string        `json:"feedback,omitempty"`
	Previous []plan.Option `json:"previous,omitempty"`
	// Template names a template to use; "auto" lets the task type decide;
	// empty always asks the LLM.
	Template string `json:"template,omitempty"`
	// Invalid lists validation problems of an earlier attempt to fix.
	Invalid  []plan.DroppedOption `json:"invalid,omitempty"`
	MaxSteps int                  `json:"maxSteps,omitempty"`
	Prompts  Prompts              `json:"prompts"`
	// MCPTools are the recorded MCP tools tool and agent steps may name,
	// as the plan prompt lists them (bounded by the workflow).
	MCPTools []PlanTool `json:"mcpTools,omitempty"`
	// Inspect are the read-only MCP tools planning may call while it
	// looks around.
	Inspect MCPInspect `json:"inspect,omitzero"`
	// Files is the manifest the workspace is brought to before planning
	// looks at it (a fork's files); empty looks at it as found.
	Files FilesRef `json:"files,omitzero"`
}

// PlanTool is a recorded MCP tool as the plan prompt lists it. The phases
// package owns its shape.
type PlanTool = phases.PlanTool

// MCPInspect names the read-only MCP tools planning or reflection may
// call while it inspects, with the digest of the catalogue the plan
// recorded. Only names travel: the activity takes their schemas from
// its own catalogue, and offers none when that is not the one recorded.
type MCPInspect struct {
	Digest string   `json:"digest,omitempty"`
	Names  []string `json:"names,omitempty"`
}

// OptionsOutput holds the generated options, not yet scored.
type OptionsOutput struct {
	Options      []plan.Option `json:"options"`
	FromTemplate string        `json:"fromTemplate,omitempty"`
	Usage        plan.Usage    `json:"usage"`
}

// StepInput runs one llm step, or one agent turn.
type StepInput struct {
	PlanID    string           `json:"planId"`
	Context   plan.StepContext `json:"context"`
	Workspace string           `json:"workspace,omitempty"`
	Prompts   Prompts          `json:"prompts"`
}

// ToolCall is a call to a tool, as the LLM asked for it or a tool step
// configures it. The llm package owns its shape.
type ToolCall = llm.ToolCall

// Message is one message of an agent step's own short transcript. The llm
// package owns its shape.
type Message = llm.Message

// AgentTurnInput asks for the next turn of an agent step.
type AgentTurnInput struct {
	StepInput
	// Transcript holds this step's earlier turns and tool results.
	Transcript    []Message `json:"transcript,omitempty"`
	Iteration     int       `json:"iteration"`
	MaxIterations int       `json:"maxIterations"`
	// MCPTools are the MCP tools the plan recorded that the step may
	// call, offered beside the built-in ones its config names.
	MCPTools []ToolSpec `json:"mcpTools,omitempty"`
}

// AgentTurnOutput is the model's turn: tool calls to make, or a final
// answer when ToolCalls is empty.
type AgentTurnOutput struct {
	Content   string     `json:"content,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     plan.Usage `json:"usage"`
	// OutputRef is the file holding Content whole, for a final answer
	// longer than the plan keeps (plan.KeptOutputBytes) when the worker
	// has an output store.
	OutputRef string `json:"outputRef,omitempty"`
	// Finish is set when ToolCalls include finish_step (FinishStep): the
	// step's answer, read here, for the workflow to end the step with
	// once the turn's other calls have succeeded.
	Finish *StepFinish `json:"finish,omitempty"`
}

// FinishStep names the tool by which the model ends an agent step in the
// turn of its last tool calls. The workflow runs no tool for it.
const FinishStep = tools.FinishStep

// StepFinish is what a turn's finish_step call says: the answer, or why
// it cannot end the step (bad arguments, called twice), which the model
// is told.
type StepFinish struct {
	Answer string `json:"answer,omitempty"`
	// OutputRef is the file holding Answer whole, for an answer longer
	// than the plan keeps (plan.KeptOutputBytes) when the worker has an
	// output store.
	OutputRef string `json:"outputRef,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ToolInput runs one tool in a workspace.
type ToolInput struct {
	PlanID    string   `json:"planId"`
	StepID    string   `json:"stepId"`
	Workspace string   `json:"workspace"`
	Call      ToolCall `json:"call"`
	// ReadOnly refuses tools that change the workspace.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Files is the manifest the workspace is brought to first, and the
	// step copy the call works in.
	Files FilesRef `json:"files,omitzero"`
}

// ToolOutput is a tool's result. A tool that ran but failed (a command that
// exited non-zero, a file that is missing) has Success false and Error set;
// only faults of the worker itself return an activity error.
type ToolOutput struct {
	Success         bool              `json:"success"`
	Output          string            `json:"output"`
	OutputTruncated bool              `json:"outputTruncated,omitempty"`
	Error           string            `json:"error,omitempty"`
	FilesChanged    []plan.FileChange `json:"filesChanged,omitempty"`
	CommandsRun     int               `json:"commandsRun,omitempty"`
	// OutputRef is the absolute path of the file holding the whole output
	// when Output was truncated and an output store is configured.
	OutputRef string `json:"outputRef,omitempty"`
	// ExitPlan is set when the tool (finish_plan) asks to end the whole
	// plan: the step completes with ExitReason and the steps not yet
	// started are skipped.
	ExitPlan   bool   `json:"exitPlan,omitempty"`
	ExitReason string `json:"exitReason,omitempty"`
	// Manifest names the files as the call left them, when the call could
	// change them and its input named the manifest it started from.
	Manifest string `json:"manifest,omitempty"`
}

// ReflectInput asks what to do after a step.
type ReflectInput struct {
	// Context centres on the step that just ended.
	Context plan.StepContext `json:"context"`
	// Result is how that step ended (plan.BuildStepContext clears the
	// step's own result); the prompt shows it, output bounded.
	Result *plan.StepResult `json:"result,omitempty"`
	// Remaining lists the first steps not yet done (ids and titles
	// only, plan.Plan.NotDone), RemainingMore counts the others.
	Remaining     []plan.StepDigest `json:"remaining,omitempty"`
	RemainingMore int               `json:"remainingMore,omitempty"`
	Mode          string            `json:"mode"`
	Prompts       Prompts           `json:"prompts"`
	// Workspace is the plan's workspace, which reflection may inspect
	// with read-only tools; empty offers none.
	Workspace string `json:"workspace,omitempty"`
	// Inspect are the read-only MCP tools reflection may call.
	Inspect MCPInspect `json:"inspect,omitzero"`
	// Files is the manifest the workspace is brought to before reflection
	// looks at it: the plan's files now.
	Files FilesRef `json:"files,omitzero"`
}

// SummarizeInput asks for the final summary.
type SummarizeInput struct {
	Goal string `json:"goal"`
	// Digest is the plan's bounded account (plan.Plan.Digest), which is
	// all the prompt shows; nil before a plan was selected.
	Digest *plan.PlanDigest `json:"digest,omitempty"`
	Status string           `json:"status"`
	// Partial is set when the run was cancelled or failed.
	Partial bool    `json:"partial,omitempty"`
	Prompts Prompts `json:"prompts"`
}

// SummarizeOutput is the final summary.
type SummarizeOutput struct {
	Summary string     `json:"summary"`
	Usage   plan.Usage `json:"usage"`
}

// SnapshotInput asks to save the workspace before execution.
type SnapshotInput struct {
	PlanID    string `json:"planId"`
	Workspace string `json:"workspace"`
	// Files is what the workspace is brought to before it is recorded:
	// a fork's files; empty records it as found.
	Files FilesRef `json:"files,omitzero"`
}

// SnapshotOutput names the saved snapshot, and what it left out ("path:
// reason"): a restore leaves those paths as they are.
type SnapshotOutput struct {
	SnapshotID string `json:"snapshotId"`
	// Manifest is SnapshotID when the snapshot is a content-addressed
	// manifest in the worker's files store: the plan's files from then on.
	Manifest string   `json:"manifest,omitempty"`
	Files    int      `json:"files"`
	Skipped  []string `json:"skipped,omitempty"`
}

// RestoreInput asks to put a snapshot back.
type RestoreInput struct {
	SnapshotID string `json:"snapshotId"`
	Workspace  string `json:"workspace"`
	// IfMoved restores only when this worker did not leave the folder at
	// SnapshotID: what was changed in it from outside since stays.
	IfMoved bool `json:"ifMoved,omitempty"`
	// Guard, unless Force, refuses (signals.ErrorTypeWorkspaceChanged) to
	// restore over a folder that differs from the files the plan left
	// (this manifest): checked where the restore runs.
	Guard string `json:"guard,omitempty"`
	Force bool   `json:"force,omitempty"`
}

// RestoreOutput says what a restore changed.
type RestoreOutput struct {
	Restored []string `json:"restored"`
	Removed  []string `json:"removed"`
}
