// Package signals is planmode's wire contract: the workflow type, the task
// queue, every signal, update and query name with its payload, and the search
// attribute keys. Nothing else in the project spells these names; the
// workflow registers its handlers through the typed definitions here and
// clients send through the same definitions, so a name or payload type
// cannot drift between the two sides. The package holds the contract only:
// names, payloads and their validation, limits, error types, the
// checkpoint. The typed Go client that sends them is package planclient.
//
// # Handlers
//
// Every [Handler] is both a signal and an update of the same name: a signal
// for fire-and-forget callers (the Web UI, a cron job), an update when the
// caller wants the answer and a synchronous rejection of bad input. A signal
// whose payload is rejected changes nothing and is listed in the pending
// query's rejected inputs.
//
// # Strict inputs
//
// Signals and updates are decoded alike by [Handler.Decode]: unknown
// fields are refused, and each payload's Validate method refuses
// contradictory fields and sizes beyond the bounds of limits.go. A
// [StartRequest] is bounded the same way by [StartRequest.Validate], which
// the workflow, the client in planclient and the CLI all call.
package signals

import (
	"go.temporal.io/sdk/temporal"
)

// WorkflowType is the registered name of the PlanMode workflow.
const WorkflowType = "PlanMode"

// DefaultTaskQueue is the task queue workers poll unless configured.
const DefaultTaskQueue = "planmode"

// MemoGoal is the memo key holding a plan's goal, which listings show
// without querying the run.
const MemoGoal = "goal"

// NotifyWorkflowType is the registered name of the child workflow that
// delivers one webhook event of a plan. A plan starts one per event with
// parent close policy ABANDON, so that a slow receiver never holds the
// plan open; workers register it beside [WorkflowType].
const NotifyWorkflowType = "PlanNotify"

// Signals and updates. Each travels as a signal and as an update.
var (
	// SelectOption picks an option by id or rank, optionally with feedback.
	SelectOption = Handler[SelectOptionRequest, SelectOptionResponse]{
		Name:        "select-option",
		Description: "Select a plan option by optionId or rank (1 = best), with optional feedback. Answers the selected option.",
	}
	// RefinePlan asks for new options from feedback.
	RefinePlan = Handler[RefinePlanRequest, OptionsView]{
		Name:        "refine-plan",
		Description: "Regenerate the options from feedback and wait for a selection again. Answers the new options.",
	}
	// AnswerClarification answers the clarifying questions.
	AnswerClarification = Handler[AnswerClarificationRequest, ClarificationResponse]{
		Name:        "answer-clarification",
		Description: "Answer the clarifying questions: {answers: {question: answer}}.",
	}
	// ConfirmSkip approves or denies a skip the reflection proposed.
	ConfirmSkip = Handler[ConfirmSkipRequest, ConfirmSkipResponse]{
		Name:        "confirm-skip",
		Description: "Approve or deny a proposed skip by requestId (see the pending query).",
	}
	// EditPlan edits the selected plan before or during execution.
	EditPlan = Handler[EditPlanRequest, EditPlanResponse]{
		Name:        "edit-plan",
		Description: "Edit the plan: insertAfter, insertBefore, append, remove, removeAfter, update. Answers the new plan version.",
	}
	// Pause stops the run at the next step boundary.
	Pause = Handler[ControlRequest, ControlState]{
		Name:        "pause",
		Description: "Pause at the next step boundary. Answers the run state.",
	}
	// Resume continues a paused run.
	Resume = Handler[ControlRequest, ControlState]{
		Name:        "resume",
		Description: "Resume a paused run. Answers the run state.",
	}
)

// Rollback restores the workspace as it was before execution. It is an
// update only: the caller needs to know which files came back.
var Rollback = UpdateOnly[RollbackRequest, RollbackResponse]{
	Name:        "rollback",
	Description: "Restore the workspace files as they were before execution started. Answers what was restored.",
}

// AwaitOptions blocks until the options of the current revision exist,
// then answers them; rejected once the run has passed selection. It is an
// update only, so that a caller can start a run and wait for its options in
// one Update-with-Start call instead of polling the options query.
var AwaitOptions = UpdateOnly[AwaitOptionsRequest, OptionsView]{
	Name:        "await-options",
	Description: "Wait until the options of the current revision exist and answer them. Rejected once the run has passed selection.",
}

// Queries.
var (
	ProgressQuery = Query[Progress]{
		Name:        "progress",
		Description: "Phase, mode, current step, totals, elapsed and estimated remaining time, tokens and cost.",
	}
	PlanQuery = Query[PlanView]{
		Name:        "plan",
		Description: "The current plan with step statuses, results and update history.",
	}
	OptionsQuery = Query[OptionsView]{
		Name:        "options",
		Description: "The options with ranking and comparison matrix.",
	}
	PendingQuery = Query[Pending]{
		Name:        "pending",
		Description: "What the run waits for (selection, clarification, skip confirmations) and the inputs it rejected.",
	}
)

// Search attributes the workflow keeps current.
var (
	// PhaseAttr holds the run's phase (plan.Phase).
	PhaseAttr = temporal.NewSearchAttributeKeyKeyword("PlanPhase")
	// AwaitingAttr holds what the run waits for: one of the Awaiting values.
	AwaitingAttr = temporal.NewSearchAttributeKeyKeyword("PlanAwaiting")
	// ProgressAttr holds the percent of steps done.
	ProgressAttr = temporal.NewSearchAttributeKeyInt64("PlanProgress")
)

// Awaiting is what a run waits for, as PlanAwaiting shows it.
type Awaiting string

// Awaiting values.
const (
	AwaitingNone Awaiting = "none"
	// AwaitingWorkspace: another open plan holds the workspace and the
	// request said to wait (onBusy wait); nobody needs to answer.
	AwaitingWorkspace     Awaiting = "workspace"
	AwaitingSelection     Awaiting = "selection"
	AwaitingClarification Awaiting = "clarification"
	AwaitingConfirmation  Awaiting = "confirmation"
	AwaitingResume        Awaiting = "resume"
)
