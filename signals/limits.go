package signals

import (
	"time"

	"github.com/planmode/planmode/plan"
)

// Bounds of what people and services send a run. Every accepted input
// stays in the run's state (the request, feedback, answers, the plan and
// its update history), travels in every continue-as-new and is answered by
// queries, and every retry, agent turn and step becomes history events; an
// unbounded input could grow a run past the server's history limits and
// get it terminated. So each is bounded here, in one place, and a run
// refuses a larger input naming the field, its value and the bound. The
// bounds of a plan itself (steps, retries, retry delay, agent iterations,
// step texts, tool params) are the plan package's: see plan.MaxPlanSteps
// and its neighbours. A request may lower a bound where it has a field for
// it (maxSteps, maxIterationsPerStep, parallelism), never raise it.
const (
	// MaxStartRequestBytes bounds a StartRequest as JSON, without the
	// checkpoint a run hands to its continuation and without a plan
	// handed in (MaxPlanBytes bounds that).
	MaxStartRequestBytes = 256 << 10
	// MaxPlanBytes bounds the plan a request hands in (Plan) as JSON:
	// plan.MaxPlanSteps steps with prompts of a few hundred bytes fit,
	// and the workflow's input stays under the server's 2 MB payload
	// limit with the rest of the request.
	MaxPlanBytes = 1 << 20
	// MaxGoalBytes bounds the goal.
	MaxGoalBytes = 32 << 10
	// MaxListItems bounds the requirements, and the constraints, of a
	// request; each item is a free text of at most MaxTextBytes.
	MaxListItems = 50
	// MaxPromptBytes bounds the system prompt and each phase prompt.
	MaxPromptBytes = 16 << 10
	// MaxPathBytes bounds the workspace path.
	MaxPathBytes = 4 << 10
	// MaxURLBytes bounds the webhook URL.
	MaxURLBytes = 2 << 10
	// MaxNameBytes bounds a short name: the template, the tenant (the
	// server's limit for a fairness key).
	MaxNameBytes = 64
	// MaxHistoryMessages and MaxHistoryBytes bound StartRequest.History:
	// its messages, and the bytes of their contents together. Prompts show
	// only a tail of it anyway.
	MaxHistoryMessages = 50
	MaxHistoryBytes    = 32 << 10

	// MaxOptionCount bounds optionCount.
	MaxOptionCount = 5
	// MaxSteps bounds execution.maxSteps: a plan's hard step bound.
	MaxSteps = plan.MaxPlanSteps
	// MaxIterationsPerStep bounds execution.maxIterationsPerStep: an agent
	// step's hard turn bound.
	MaxIterationsPerStep = plan.MaxAgentIterations
	// MaxParallelism bounds execution.parallelism, the steps run at once.
	MaxParallelism = 32
	// MaxWait bounds each wait for a person (selection.timeout,
	// execution.confirmTimeout, clarify.timeout); zero still waits for
	// ever.
	MaxWait = plan.Duration(30 * 24 * time.Hour)
	// MinHeartbeatTimeout is the shortest heartbeat timeout a request may
	// set: activities heartbeat at a third of it, and much shorter would
	// make a busy worker look dead.
	MinHeartbeatTimeout = plan.Duration(time.Second)
	// MaxHeartbeatTimeout is the longest: a dead worker's activity is
	// retried elsewhere only after it.
	MaxHeartbeatTimeout = plan.Duration(10 * time.Minute)

	// MaxTextBytes bounds one free text: each requirement and constraint,
	// select and refine feedback, a clarification answer and its question,
	// a confirm-skip note, an edit, pause or resume reason.
	MaxTextBytes = 4 << 10
	// MaxAnswers bounds the answers of one answer-clarification request.
	MaxAnswers = 20
	// MaxEdits bounds the edits of one edit-plan request.
	MaxEdits = 50
	// MaxEditBytes bounds the edits of one edit-plan request, as JSON.
	MaxEditBytes = 64 << 10

	// MaxSignalsPerRun is how many signals one run receives before it
	// continues as new at its next safe point (a wait for a selection,
	// the workspace or a resume, or a step boundary). The server refuses
	// every signal to a run past its history.maximumSignalsPerExecution
	// (10,000 by default), legitimate ones included; a continuation
	// starts counting afresh. The margin leaves room for the signals that
	// arrive before the run reaches a safe point.
	MaxSignalsPerRun = 9000
)
