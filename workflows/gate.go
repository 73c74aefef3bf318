package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// gate decides every tool call before it runs, by the approval policy the
// plan recorded tightened by its request's rules: allow runs it, deny
// refuses it at once naming the rule, ask holds only the calling step
// until a person approves or denies it (approve-tool-call,
// deny-tool-call) or its timeout decides. It owns the open requests and
// the decisions (signals.ApprovalState); answers wait in answers until
// the held coroutine takes them. A run continues as new only with no step
// running, so no request is ever open across continue-as-new without its
// step: a restored one is in the checkpoint all the same.
type gate struct {
	st signals.ApprovalState
	// policy is the request's approval policy; the recorded tools'
	// fill in what it leaves out.
	policy signals.ApprovalPolicy
	run    gateRun
	plans  gatedPlan
	log    eventLog
	pause  pauser
	// answers are the decided requests whose coroutine has not taken
	// the answer yet, by request id.
	answers map[string]gateAnswer
	// paused are the requests whose timeout paused the plan: they wait
	// without a deadline now.
	paused map[string]bool
}

// gateRun is what the gate asks of the run: to show a request or a
// decision (publish), and the tools the plan recorded with the request's
// rules, which decide calls.
type gateRun interface {
	publish(ctx workflow.Context)
	recorded() recorded
}

// gatedPlan is what the gate asks of the executor: the plan's version a
// request is shown for, and to fail the plan when a timeout says so.
type gatedPlan interface {
	planVersion() int
	failPlan(ctx workflow.Context, reason string)
}

// gateAnswer is how a request was decided, for its coroutine.
type gateAnswer struct {
	approve bool
	// args replace the call's arguments when the approval edited them.
	args     json.RawMessage
	decision signals.ApprovalDecision
	// failPlan is set when the timeout's outcome fails the plan.
	failPlan bool
}

// verdict is what the gate says of one call: run it with args, or refuse
// it saying why (the step's error, or the agent's tool result).
type verdict struct {
	args    json.RawMessage
	refusal string
	// note is what the step records of the decision (who approved).
	note string
	// approved is set when a person (or a timeout) let the call run.
	approved bool
}

// newGate returns a gate over st.
func newGate(st signals.ApprovalState, policy signals.ApprovalPolicy) *gate {
	return &gate{st: st, policy: policy, answers: map[string]gateAnswer{}, paused: map[string]bool{}}
}

// check decides a call of tool with args by step.
func (g *gate) check(ctx workflow.Context, step plan.Step, tool string, args json.RawMessage) verdict {
	k := g.run.recorded()
	_, recorded := k.tools.Tool(tool)
	if k.tools == nil || !(recorded || slices.Contains(plan.BuiltinTools(), tool)) {
		// Nothing recorded gates nothing; a tool that does not exist
		// fails as it is, nobody is asked about it.
		return verdict{args: args}
	}
	action, why := k.policy().Decide(plan.ToolCall{Tool: tool, Args: args, ReadOnly: k.readOnly(tool)})
	switch action {
	case plan.ApprovalAllow:
		return verdict{args: args}
	case plan.ApprovalAsk:
		return g.ask(ctx, step, tool, args, why)
	}
	d := signals.ApprovalDecision{StepID: step.ID, Tool: tool, Decision: signals.DecisionDenied, By: "policy",
		Reason: why, At: workflow.Now(ctx), Auto: true}
	g.keep(d)
	g.log.record(ctx, signals.EventApprovalDecided, &step, fmt.Sprintf("%s of step %s denied by policy: %s", tool, step.ID, why),
		activities.NotifyData{Decision: &d})
	return verdict{refusal: fmt.Sprintf("the call of %s was denied by %s", tool, why)}
}

// ask opens a request for the call, waits for its decision and says what
// it was.
func (g *gate) ask(ctx workflow.Context, step plan.Step, tool string, args json.RawMessage, why string) verdict {
	ap := g.open(ctx, step, tool, args, why)
	ans, err := g.wait(ctx, ap.RequestID)
	if err != nil {
		g.drop(ap.RequestID)
		return verdict{refusal: fmt.Sprintf("the call of %s was not decided: %v", tool, err)}
	}
	d := ans.decision
	if ans.failPlan {
		g.plans.failPlan(ctx, fmt.Sprintf("nobody approved the call of %s by step %s in time (onTimeout fail-plan)", tool, step.ID))
	}
	if !ans.approve {
		return verdict{refusal: fmt.Sprintf("the call of %s was %s by %s: %s", tool, deniedWord(d), d.By, orDash(d.Reason))}
	}
	note := fmt.Sprintf("%s approved by %s", tool, d.By)
	if d.EditedArgs {
		note += " with edited arguments"
		args = ans.args
	}
	if d.Reason != "" {
		note += ": " + d.Reason
	}
	return verdict{args: args, note: note, approved: true}
}

// deniedWord says how a refused request ended.
func deniedWord(d signals.ApprovalDecision) string {
	if d.Decision == signals.DecisionTimedOut {
		return "denied (timed out)"
	}
	return "denied"
}

// open records a request for the call, shows it and announces it.
func (g *gate) open(ctx workflow.Context, step plan.Step, tool string, args json.RawMessage, why string) signals.ToolApproval {
	pol := g.policy.WithDefaults(g.run.recorded().tools.Approval)
	now := workflow.Now(ctx)
	g.st.ApprovalSeq++
	full, preview, size := signals.ApprovalArgs(args)
	ap := signals.ToolApproval{RequestID: fmt.Sprintf("approval-%d", g.st.ApprovalSeq), StepID: step.ID, Tool: tool,
		Args: full, ArgsPreview: preview, ArgsBytes: size, ArgsDigest: plan.ArgsDigest(args), PlanVersion: g.plans.planVersion(),
		Why: why, Since: now, Deadline: now.Add(pol.Timeout.D()), OnTimeout: pol.OnTimeout}
	if pol.RemindAfter > 0 {
		at := now.Add(pol.RemindAfter.D())
		ap.RemindAt = &at
	}
	g.st.Approvals = append(g.st.Approvals, ap)
	g.run.publish(ctx)
	g.log.record(ctx, signals.EventApprovalRequested, &step, fmt.Sprintf("step %s waits for approval of %s (%s): request %s", step.ID, tool, why, ap.RequestID),
		activities.NotifyData{Approval: &ap})
	return ap
}

// wait holds the calling coroutine until request id is decided: by a
// person, or by its timeout; it sends the reminder once on the way.
func (g *gate) wait(ctx workflow.Context, id string) (gateAnswer, error) {
	answered := func() bool { _, ok := g.answers[id]; return ok }
	for !answered() {
		ap, ok := g.find(id)
		if !ok {
			return gateAnswer{}, fmt.Errorf("request %s is no longer open", id)
		}
		if g.paused[id] {
			if err := workflow.Await(ctx, answered); err != nil {
				return gateAnswer{}, err
			}
			continue
		}
		next := ap.Deadline
		if ap.RemindAt != nil && !ap.Reminded && ap.RemindAt.Before(next) {
			next = *ap.RemindAt
		}
		if d := next.Sub(workflow.Now(ctx)); d > 0 {
			if _, err := workflow.AwaitWithTimeout(ctx, d, answered); err != nil {
				return gateAnswer{}, err
			}
			continue
		}
		g.due(ctx, ap)
	}
	ans := g.answers[id]
	delete(g.answers, id)
	return ans, nil
}

// due acts on a request whose reminder or deadline came.
func (g *gate) due(ctx workflow.Context, ap signals.ToolApproval) {
	if ap.RemindAt != nil && !ap.Reminded && ap.RemindAt.Before(ap.Deadline) {
		g.update(ap.RequestID, func(a *signals.ToolApproval) { a.Reminded = true })
		ap.Reminded = true
		g.log.record(ctx, signals.EventApprovalReminder, nil, fmt.Sprintf("step %s still waits for approval of %s: request %s, deadline %s",
			ap.StepID, ap.Tool, ap.RequestID, ap.Deadline.Format(time.RFC3339)), activities.NotifyData{Approval: &ap})
		return
	}
	g.timeout(ctx, ap)
}

// timeout decides a request nobody decided by its deadline, as its
// OnTimeout says; the decision is the timeout's.
func (g *gate) timeout(ctx workflow.Context, ap signals.ToolApproval) {
	d := signals.ApprovalDecision{RequestID: ap.RequestID, StepID: ap.StepID, Tool: ap.Tool, Decision: signals.DecisionTimedOut,
		By: "timeout", At: workflow.Now(ctx), Auto: true,
		Reason: fmt.Sprintf("nobody decided by %s: onTimeout %s", ap.Deadline.Format(time.RFC3339), ap.OnTimeout)}
	if ap.OnTimeout == signals.ApprovalTimeoutPause {
		g.paused[ap.RequestID] = true
		g.keep(d)
		reason := fmt.Sprintf("approval request %s of %s timed out: paused, the call still waits", ap.RequestID, ap.Tool)
		g.pause.setPaused(ctx, true, reason)
		g.run.publish(ctx)
		g.log.record(ctx, signals.EventPaused, nil, "paused: "+reason, byReason{By: string(plan.ActorSystem), Reason: reason})
		return
	}
	g.decide(ctx, ap, gateAnswer{decision: d, failPlan: ap.OnTimeout == signals.ApprovalTimeoutFailPlan})
}

// decide closes request ap with ans: the request leaves the pending list,
// the decision is kept and announced, and the held coroutine takes ans.
func (g *gate) decide(ctx workflow.Context, ap signals.ToolApproval, ans gateAnswer) {
	g.drop(ap.RequestID)
	delete(g.paused, ap.RequestID)
	g.keep(ans.decision)
	g.answers[ap.RequestID] = ans
	g.run.publish(ctx)
	d := ans.decision
	g.log.record(ctx, signals.EventApprovalDecided, nil, fmt.Sprintf("request %s (%s of step %s) %s by %s", ap.RequestID, ap.Tool, ap.StepID, d.Decision, d.By),
		activities.NotifyData{Approval: &ap, Decision: &d})
}

// keep records a decision, the last MaxApprovalDecisions only.
func (g *gate) keep(d signals.ApprovalDecision) {
	st := &g.st
	st.ApprovalDecisions = append(st.ApprovalDecisions, d)
	if over := len(st.ApprovalDecisions) - signals.MaxApprovalDecisions; over > 0 {
		st.ApprovalDecisions = append([]signals.ApprovalDecision(nil), st.ApprovalDecisions[over:]...)
		st.ApprovalDecisionsDropped += over
	}
}

// find returns the open request id.
func (g *gate) find(id string) (signals.ToolApproval, bool) {
	i := slices.IndexFunc(g.st.Approvals, func(a signals.ToolApproval) bool { return a.RequestID == id })
	if i < 0 {
		return signals.ToolApproval{}, false
	}
	return g.st.Approvals[i], true
}

// update changes the open request id in place.
func (g *gate) update(id string, fn func(*signals.ToolApproval)) {
	for i := range g.st.Approvals {
		if g.st.Approvals[i].RequestID == id {
			fn(&g.st.Approvals[i])
		}
	}
}

// drop removes the open request id.
func (g *gate) drop(id string) {
	st := &g.st
	st.Approvals = slices.DeleteFunc(st.Approvals, func(a signals.ToolApproval) bool { return a.RequestID == id })
	if len(st.Approvals) == 0 {
		st.Approvals = nil
	}
}

// reask moves every open request to the plan's version now: a plan edit
// or replan asks again under the new version (same request id), so an
// approval of what the old version showed is refused as stale. Each is
// announced again (approval-requested), as whoever was asked holds a
// request that can no longer be approved as it was shown.
func (g *gate) reask(ctx workflow.Context) {
	version := g.plans.planVersion()
	for i := range g.st.Approvals {
		ap := &g.st.Approvals[i]
		if ap.PlanVersion == version {
			continue
		}
		ap.PlanVersion = version
		again := *ap
		g.log.record(ctx, signals.EventApprovalRequested, nil, fmt.Sprintf("the plan changed (version %d): step %s asks again for approval of %s: request %s",
			again.PlanVersion, again.StepID, again.Tool, again.RequestID), activities.NotifyData{Approval: &again})
	}
}
