package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/view"
)

// defaultHistoryLimit is the history length past which a run continues as
// new at the next step boundary, whatever the server suggests.
const defaultHistoryLimit = 10000

// runSettings tune a run; the zero value is not used, see newRun.
type runSettings struct {
	historyLimit int
	budget       historyBudget
	// signalLimit is how many signals a run receives before it continues
	// as new at its next safe point.
	signalLimit int
}

// runSetting changes one run setting.
type runSetting func(*runSettings)

// withHistoryLimit sets the history length that triggers continue-as-new.
func withHistoryLimit(n int) runSetting {
	return func(o *runSettings) { o.historyLimit = n }
}

// withSignalLimit sets how many signals make a run continue as new.
func withSignalLimit(n int) runSetting {
	return func(o *runSettings) { o.signalLimit = n }
}

// withHistoryBudget sets the history length and size (bytes) past which a
// step stops, see historyBudget.
func withHistoryBudget(events, bytes int) runSetting {
	return func(o *runSettings) { o.budget = historyBudget{events: events, bytes: bytes} }
}

// run is one PlanMode run, and the cycle that drives it: the phases in
// the order they run (workflow.go: lease, clarify, options, select, act,
// end), continuing as new at their safe points. It owns the cycle's state
// (signals.CycleState), with two pieces of its own: the clarification
// (clar), which waits for answers, and the selection (sel), which owns
// the options. Its parts work beside it, each owning its state and
// asking the rest through small interfaces, which the run implements for
// what is the cycle's (this file): the workspace lease (lease), the gate
// that decides tool calls, the executor (exec) that runs the selected
// plan, the controls (ctl) that take the signals, updates and queries,
// the journal (log) that keeps the run's event log, the notifier (hooks)
// that delivers its webhook events, the chain that decides
// when the run continues as new, and the publisher (pub) that shows the
// run in search attributes and current details. No part holds the run.
// Only the workflow's coroutines write; queries, validators and await
// conditions only read.
type run struct {
	req        signals.StartRequest
	opts       runSettings
	workflowID string
	namespace  string
	prompts    activities.Prompts
	// lim are the limits every validation and plan change keeps: the
	// request's maxSteps and the built-in tools.
	lim plan.Limits
	// st is the cycle's part of what the run carries across
	// continue-as-new; each part holds its own (see checkpoint, which
	// assembles the whole, and restore, which splits it back). Usage
	// and LastError are written for everyone (addUsage, noteError).
	st signals.CycleState

	// The rest is transient. A run continues as new only at a step
	// boundary of the executing phase or while it waits (for its
	// workspace, a selection, a resume), once no handler or signal is in
	// progress and no webhook delivery is in flight: every field below
	// is then at its resting value, or rebuilt by the continuation.
	clar *clarification
	sel  *selection
	// isEnding is set once the run is ending: a deadline passing then
	// changes nothing.
	isEnding bool
	// passed is the reason the run's deadline gave once it passed.
	passed string

	lease *workspaceLease
	gate  *gate
	exec  *executor
	ctl   *controls
	hooks *notifier
	log   *journal
	chain *chain
	pub   publisher
	prio  *answerPriority
}

// The cycle's own writes that every part asks for (reporter), and what the
// parts read of the cycle's state.

// addUsage adds an activity's usage in phase to the run's and records it
// in the log.
func (r *run) addUsage(ctx workflow.Context, phase string, u plan.Usage) {
	r.st.Usage = r.st.Usage.Add(u)
	if u != (plan.Usage{}) {
		r.log.record(ctx, signals.EventUsage, nil, fmt.Sprintf("%s: %d tokens, $%.4f", phase, u.TotalTokens, u.CostUSD),
			usageData{Phase: phase, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
				TotalTokens: u.TotalTokens, CostUSD: u.CostUSD, Calls: u.Calls})
	}
}

// noteError records msg as the run's last error: something failed and the
// run goes on.
func (r *run) noteError(msg string) {
	r.st.LastError = msg
}

// setPhase moves the run to phase and publishes it. A move the mode
// machine does not allow is logged, not refused: the phase is the truth.
func (r *run) setPhase(ctx workflow.Context, phase plan.Phase) {
	if from, to := r.st.Phase.Mode(), phase.Mode(); r.st.Phase != "" && !plan.CanTransition(from, to) {
		workflow.GetLogger(ctx).Warn("unexpected mode change", "from", from, "to", to, "phase", phase)
	}
	r.st.Phase = phase
	r.publish(ctx)
}

// checkpoint is the run's state as one signals.Checkpoint: the cycle's
// own, with each part's. The slices and pointers are the parts' own, not
// copies.
func (r *run) checkpoint() signals.Checkpoint {
	return signals.Checkpoint{
		CycleState:     r.st,
		ExecutionState: r.exec.st,
		ApprovalState:  r.gate.st,
		InputState:     r.ctl.st,
		NotifyState:    r.hooks.st,
		EventLogState:  r.log.st,
		LeaseState:     r.lease.st,
	}
}

// restore splits cp, the state a previous run handed on, back into the
// cycle's and each part's.
func (r *run) restore(cp signals.Checkpoint) {
	r.st = cp.CycleState
	r.exec.st = cp.ExecutionState
	r.gate.st = cp.ApprovalState
	r.ctl.st = cp.InputState
	r.hooks.st = cp.NotifyState
	r.log.st = cp.EventLogState
	r.lease.st = cp.LeaseState
}

// handOn is the request the run's continuation starts from: the run's
// own, its state in the checkpoint, one more run in the chain. Step
// results are compacted first; a plan handed in with the request is not
// carried a second time beside the checkpoint's.
func (r *run) handOn() signals.StartRequest {
	next := r.req
	compactAll(r.exec.plan())
	cp := r.checkpoint()
	cp.Runs++
	next.Checkpoint = &cp
	if cp.Plan != nil {
		next.Plan = nil
	}
	return next
}

// goal is the run's goal, clarified once clarification ran.
func (r *run) goal() string { return r.st.Goal }

// phase is the run's phase.
func (r *run) phase() plan.Phase { return r.st.Phase }

// percent is the share of the plan's work done (executor.percent).
func (r *run) percent() int { return r.exec.percent() }

// usage is what the run's activities used so far.
func (r *run) usage() plan.Usage { return r.st.Usage }

// limits are the limits every validation and plan change keeps.
func (r *run) limits() plan.Limits { return r.lim }

// planned reports whether the cycle handed a plan to the executor.
func (r *run) planned() bool { return r.exec.plan() != nil }

// task is the task the activities work on: the request's, with the goal
// the run holds (the request's until clarification clarified it), which
// is held nowhere else.
func (r *run) task() plan.Task {
	return plan.Task{
		ID:           r.workflowID,
		Goal:         r.st.Goal,
		Requirements: r.req.Requirements,
		Constraints:  r.req.Constraints,
		Priority:     r.req.Priority,
		Context:      plan.TaskContext{WorkspaceRoot: r.req.Workspace},
		History:      r.req.History,
	}
}

// optionsInput is what a request for options starts from: the task with
// the clarified goal, the request's template, count and bounds, the recorded
// MCP tools the plan may name and inspect, and the files.
func (r *run) optionsInput() activities.OptionsInput {
	k := r.recorded()
	return activities.OptionsInput{
		Task:     r.task(),
		Count:    r.req.OptionCount,
		Template: r.req.Template,
		MaxSteps: r.req.Execution.MaxSteps,
		Prompts:  r.prompts,
		MCPTools: k.planTools(),
		Inspect:  k.inspectMCP(),
		Files:    r.exec.filesRef(),
	}
}

// ending reports whether the run is ending: it settles, summarizes or
// has ended.
func (r *run) ending() bool { return r.isEnding }

// snapshotID is the snapshot of the workspace before execution, "" before
// one was taken.
func (r *run) snapshotID() string { return r.st.SnapshotID }

// deadline is the reason the run's deadline gave once it passed, "" until
// then.
func (r *run) deadline() string { return r.passed }

// recorded returns the run's recorded tools; before planning records
// them, nothing.
func (r *run) recorded() recorded {
	return recorded{tools: r.st.Tools, rules: r.req.Approval.Rules}
}

// view is the run as the queries, the current details and the search
// attributes read it: the state assembled from the parts (a few hundred
// bytes copied, no slice or plan) and pointers to the rest, so building
// one costs next to nothing and a projection is computed only when asked
// for.
func (r *run) view() view.Run {
	cp := r.checkpoint()
	return view.Run{
		State:         &cp,
		Request:       &r.req,
		WorkflowID:    r.workflowID,
		Namespace:     r.namespace,
		Clarify:       r.clar.q,
		Selecting:     r.sel.waiting,
		Refining:      r.sel.refining,
		WorkspaceWait: r.lease.wait,
		Limits:        r.lim,
	}
}

// publish shows the run's state outside its queries (see publisher); when
// it changed the search attributes, the event log's next batch carries the
// run's progress too, so a reader of the log stands where a reader of
// the attributes does.
func (r *run) publish(ctx workflow.Context) {
	v := r.view()
	awaiting := view.Awaiting(v)
	r.log.told(ctx, v.State.Phase, awaiting)
	r.prio.waitFor(awaiting)
	if r.pub.publish(ctx, v, awaiting, r.exec.percent(), r.exec.launched, r.publish) {
		r.log.progressDue()
	}
}
