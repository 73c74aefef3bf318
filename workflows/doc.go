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
// # Phases
//
// clarifying → planning → awaiting-selection → executing ⇄ reflecting →
// summarizing → completed | failed | cancelled. A run that clarification
// answers outright ends as completed with status answered.
//
// # Humans
//
// Every input travels both as a signal (fire and forget; a bad payload is
// refused and listed in the pending query) and as an update of the same name
// (validated before it is accepted; the caller gets the answer or the
// reason it was refused). Rollback is an update only.
//
// # What it publishes
//
// The progress, plan, options and pending queries; the PlanPhase,
// PlanAwaiting and PlanProgress search attributes, upserted only when a
// value changes (a server must have them registered, or the upsert fails
// the workflow task); current details for the Web UI, a few KiB of
// markdown with the options or the steps, what the run waits for and the
// exact commands that answer it; and webhook events through the Notify activity (plan created, waiting for
// a selection, a clarification or a confirmation, each step's end, the
// run's end), each in its own coroutine so a slow receiver never holds the
// run up.
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
//   - Temporal cancellation completes the workflow normally with a Result
//     of status cancelled (the SDK allows completing after a cancel
//     request), so callers get the partial summary instead of a bare
//     CanceledError. Cleanup runs in a disconnected context.
//   - Step failures, activity errors included, never fail the workflow: they
//     fail the step and the run ends failed with the reasons in Result.Error,
//     unless a reflection (or a finish_plan call) declared the goal achieved
//     afterwards: that verdict outweighs the failures on the way.
package workflows
