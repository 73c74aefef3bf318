// Package workflows holds the PlanMode workflow: planmode's clarify → plan
// options → select → act → reflect → summarize cycle as one durable
// Temporal workflow.
//
// The workflow orchestrates only. Every LLM call and tool call is an
// activity of [activities.Activities], called by method reference through
// the typed helpers in calls.go; the domain rules (validation, edits,
// ranking, the ready set) live in package plan. The wire contract (names,
// payloads, search attributes) lives in package signals.
//
// # Reading the code
//
// [PlanMode] builds a run and drives it; the run's parts are types a
// reader meets in the order they act, each writing only what it owns:
//
//   - The cycle, run (workflow.go): the phases in the order they run,
//     one file each: the workspace lease (lease.go), clarify.go,
//     options.go, select.go (external.go for a plan handed in), the
//     executor's act, summarize.go for the end, and continue.go for
//     continue-as-new; deadline.go bounds them all. It owns the request
//     and the carried state, one signals.Checkpoint whose fields the
//     other parts write only through the cycle or where the run type's
//     comment says they own them (state.go has the shared writes).
//   - The executor (execute.go, step.go, agent.go, reflect.go, skip.go,
//     budget.go, limits.go): steps, tries, agent turns and tool calls,
//     fallbacks, the reflection after each step, skips and the skip
//     confirmations (confirmations), the budgets and the history budget.
//   - The controls (handlers.go, inputs.go, controls.go): the signals and
//     updates, each a validator that only reads and a handler that asks
//     the part that owns the change to make it, and the queries.
//   - The notifier (notify.go) sends the webhooks; the publisher
//     (publish.go, goalattr.go) upserts the search attributes and sets
//     the current details.
//
// Every read-only projection (the queries' answers, the search attribute
// values, the Web UI's details) is a pure function of package view over a
// view.Run, which the run builds from pointers to its state when a value
// is asked for.
//
// # Phases
//
// (awaiting-workspace →) clarifying → planning → awaiting-selection →
// executing → summarizing → completed | failed | cancelled. A run waits in
// awaiting-workspace only while another open plan holds its workspace and
// it asked to wait. The reflection after each step runs within executing:
// a run never shows reflecting. A run that clarification answers
// outright ends as completed with status answered.
//
// # How a run ends
//
// Temporal's status tells the truth, and the Result is never lost. A
// completed or answered run returns its Result (Completed). A failed run
// returns a non-retryable application error of type
// signals.ErrorTypePlanFailed whose first detail is the Result (Failed). A
// cancelled run, by Temporal cancellation or by a selection timeout with
// the cancel outcome, returns a CanceledError whose details are the Result
// (Canceled): the SDK sends the cancel command for it and the server
// records WorkflowExecutionCanceled with or without a cancel request.
// [signals.ResultFromError] reads the Result back.
//
// # Humans
//
// Every input travels both as a signal (fire and forget; a bad payload is
// refused and listed in the pending query) and as an update of the same name
// (validated before it is accepted; the caller gets the answer or the
// reason it was refused, a non-retryable application error of one of
// signals.RejectionTypes). Rollback is an update only. A signal whose
// payload is not even JSON is refused and listed too.
//
// # What it publishes
//
// The progress, plan, options and pending queries; the PlanPhase,
// PlanAwaiting and PlanProgress search attributes, upserted only when a
// value changes (PlanProgress on its own at most once a second and at
// most progressLag behind: progressEvery), and PlanGoal, set once
// with the first of them to what the
// worker answered at the run's start: the goal, or its keyed digest when
// the worker encrypts payloads (resolveGoalAttr); a server must have them
// registered, or the upsert fails the workflow task; current details
// for the Web UI, a few KiB of markdown with the options or the steps,
// what the run waits for and the exact commands that answer it, rebuilt
// when what the operator acts on changes or a step starts and otherwise
// at most once a second of workflow time (publisher); and
// webhook events (plan created, waiting for a selection, a clarification
// or a confirmation, each step's start and end, each new plan version,
// pause, resume, a budget exceeded, the run's end), each delivered by a
// [PlanNotify] child workflow that the run abandons when it closes, so a
// slow receiver never holds the run up; a run that names no webhook asks
// the worker at its start whether it has one, and with none sends
// nothing (askReceiver). PlanProgress is the percent of
// the steps that will run that completed (plan.Plan.PercentOfWork):
// skipped steps and unused fallbacks leave the count, and a failed or
// cancelled plan says how far it got.
//
// # Long runs
//
// At a step boundary with no step running, a run whose history passed
// defaultHistoryLimit events, or whose server suggests it, continues as new
// with its whole state in StartRequest.Checkpoint, after letting running
// handlers and webhook deliveries finish and draining the signal channels.
// The run keeps that state as a [signals.Checkpoint] from its start, so
// the continuation receives it whole, never copied field by field. Only a
// continued run (one with a ContinuedExecutionRunID) accepts a checkpoint:
// a first run that carries one fails at once as an InvalidRequest.
//
// Where a run cannot continue as new (inside a step: before every try,
// agent turn and tool call) it checks its history against a budget of half
// the server's limits; past it, execution halts and the run ends failed
// with "history budget exhausted", long before the server would terminate
// it.
//
// # Choices made here
//
//   - Clarify errors do not fail a run: it proceeds with the original goal.
//     A clarification wait that times out proceeds with the answers given so
//     far, or with the original goal when there are none.
//   - A refine restarts the selection timeout: new options get a full wait.
//   - A skip condition that fails to evaluate is recorded as the run's last
//     error and the step runs: doing the work is the safe side.
//   - An agent step that reaches its iteration cap succeeds with
//     IterationLimitReached set and says so in its output (gollem's
//     graceful degradation); the reflection decides what follows.
//   - Execution modes (gollem): complete asks a person for every skip;
//     balanced applies skips at or above the confidence threshold and asks
//     below it; efficient applies skips at or above the threshold and drops
//     the rest, unless execution.confirmTimeout is set, in which case it asks
//     (with that deadline) instead of dropping.
//   - Budget onExceed pause pauses once; resuming after it waives the
//     budget for the rest of the run (it would otherwise pause again at the
//     very next step, since usage only grows).
//   - Temporal cancellation ends the run Canceled with the Result (partial
//     summary included) as the cancellation's details; cleanup and the
//     summary run in a disconnected context.
//   - Step failures, activity errors included, fail the step, not the
//     workflow at once: the run goes on to its end and ends Failed with the
//     reasons in Result.Error, unless a reflection (or a finish_plan call)
//     declared the goal achieved afterwards: that verdict outweighs the
//     failures on the way.
//
// # Changing workflow code
//
// The code carries one behaviour, the baseline: no version markers, no
// old branches. testdata holds its recorded histories, one per workflow
// type and ending, and TestReplayBaseline replays them: a change that
// makes a workflow issue other commands for a recorded history fails
// there. A change to workflow code ships one of two ways:
//
//   - As a new pinned build (worker versioning, pinned behaviour): a run
//     stays on the build that started it until it continues as new, so
//     the change only meets histories it wrote. What crosses that
//     boundary must stay compatible: the StartRequest with its
//     signals.Checkpoint, which the new build reads from the old build's
//     last run, and the wire contract of package signals. A change that
//     fails the replay test can ship only this way, and cuts a new
//     baseline.
//   - Behind one workflow.GetVersion, when it must reach runs already
//     open: one change id for the change, resolved where the change is
//     (never gathered into flags), the old commands kept on the
//     DefaultVersion branch. The baseline holds no marker, so it replays
//     that branch and the test keeps guarding it.
//
// The histories are recorded again (the TestRecord tests) only when a
// new baseline is cut: every GetVersion folded into the one behaviour,
// once no run can replay a history from before it on this code.
package workflows
