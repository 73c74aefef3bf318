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
// [PlanMode] builds a run and drives it. The run's state is one
// [signals.Checkpoint] made of one struct per part: each part holds its
// own, writes only that, and asks the rest through a small interface
// (parts.go and each part's file) that the run, or the part that owns
// the answer, implements; no part holds the run. The run assembles the
// checkpoint from the parts when it continues as new or a view is asked
// for (run.checkpoint) and splits it back in the continuation
// (run.restore).
//
//	part (files)                state it owns                        what it asks of the rest
//	cycle: run (state.go,       CycleState but Options: Runs,        drives the phases and the other
//	  workflow.go, clarify.go,    StartedAt, Phase, Goal, SnapshotID,  parts; implements what they ask
//	  fork.go, tools.go,          ForkedFrom, Usage, Offline,          of the cycle (report, set the
//	  external.go, deadline.go,   LastError, Tools; not carried: the   phase, read the goal, usage,
//	  end.go)                     deadline's reason                    tools, limits, the view)
//	  selection (selection.go,  Options; whether it waits, whether   run: report, set the phase, the
//	    options.go, select.go)    a refine runs                        view, what options start from,
//	                                                                   limits; journal; chain
//	  clarification (answers.go) the questions and answers (not      run: publish, the view, the
//	                              carried)                             phase; journal
//	executor (execute.go,       ExecutionState: Plan, Manifest       run: report, set the phase, read
//	  act.go, reflect.go,         (files), SkipConfirmations and       goal, usage, tools, limits,
//	  edit.go, settle.go,         SkipSeq (confirmations), Budget and  phase, snapshot, deadline;
//	  halt.go) with its runner    BudgetWaived (budget),               controls: pause; chain: continue
//	  (runner.go, step.go,        MaxConcurrent; the halt              as new; inbox: record a refused
//	  agent.go, steptools.go),                                         reflection; gate: decide a call;
//	  budget, files, skips                                             journal
//	gate (gate.go,              ApprovalState: Approvals,            run: publish, the recorded tools;
//	  gate_inputs.go)             ApprovalSeq, ApprovalDecisions,      executor: the plan's version, fail
//	                              ApprovalDecisionsDropped             the plan; controls: pause; journal
//	controls (controls.go,      InputState: Paused, PauseReason,     run: publish, the view, the phase;
//	  inbox.go)                   PausedFor, PausedAt; Rejected        notifier; the owner of each input
//	                              (inbox)                              (owners), which validates and
//	                                                                   applies it; budget: waive
//	journal (journal.go)        EventLogState: EventSeq,             notifier: deliver a webhook event
//	                              RecentEvents, EventPhase,
//	                              EventAwaiting; the events not yet
//	                              written to a marker
//	notifier (notify.go)        NotifyState: NotifySeq, NoReceiver   run: goal, phase, percent
//	lease (lease.go)            LeaseState: Lease                    run: set the phase; chain
//	chain (continue.go)         nothing                              inbox: signals spent, idle;
//	                                                                   notifier: deliveries in flight;
//	                                                                   journal: every event written;
//	                                                                   run: the request to hand on
//	publisher (publish.go,      its own bookkeeping                  nothing: it reads a view.Run
//	  goalattr.go)                                                     handed to it
//
// The controls route each input to its owner (controls.owners): the
// validator only reads, the handler changes what its owner owns. Every
// read-only projection (the queries' answers, the search attribute
// values, the Web UI's details) is a pure function of package view over
// a view.Run, which the run builds when a value is asked for: the
// checkpoint assembled from the parts (a few hundred bytes copied, no
// slice or plan) and pointers to the rest.
//
// The files read as layers: a part's type and its leaf methods sit below
// the files that drive it, the cycle's state.go below its phases, and
// workflow.go on top (testsuite's TestWorkflowFilesReadAsLayers).
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
// Three verbs end a run, and nothing else does:
//
//   - halt (executor.halt) stops new steps, for one halt value: a kind
//     (the goal declared achieved, tokens, cost, history, an approval
//     that timed out with fail-plan, the deadline) and a reason. Running
//     steps finish. The first halt that fails the run stands, and
//     outweighs a goal declared achieved before it (halt.then). A budget
//     pause (onExceed pause) is no halt: the budget holds the run paused
//     (the controls' pause) until a person resumes or raises it.
//   - settle (executor.settle) finishes the steps at the run's end: after
//     a cancellation or the deadline it waits for the running steps and
//     cancels every step not done; otherwise it skips the fallbacks
//     nobody needed and cancels the steps a failed dependency blocks.
//     Then it brings the workspace to the plan's files and drops the
//     skip confirmations still open.
//   - end (run.end, and run.endAnswered for a run clarification
//     answered) builds the Result, with the summary and the metrics,
//     gives the lease back, reports the end (webhook, metrics) and
//     returns the Result the way Temporal records it (returned).
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
// the worker encrypts payloads (goalAttrState.resolve); a server must have them
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
// Each part keeps its share of that state from the run's start, and the
// run assembles the [signals.Checkpoint] from them, so the continuation
// receives it whole, never copied field by field. Only a
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
