package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// skipPolicy is what the execution mode makes of a proposed skip.
type skipPolicy int

const (
	skipApply skipPolicy = iota
	skipAsk
	skipDrop
)

// policyFor applies gollem's execution modes to a skip's confidence.
func policyFor(ex signals.ExecutionPolicy, confidence float64) skipPolicy {
	confident := confidence >= ex.SkipConfidenceThreshold
	switch ex.Mode {
	case signals.ExecComplete:
		return skipAsk
	case signals.ExecEfficient:
		if confident {
			return skipApply
		}
		if ex.ConfirmTimeout > 0 {
			return skipAsk
		}
		return skipDrop
	default:
		if confident {
			return skipApply
		}
		return skipAsk
	}
}

// confirmations are the skips a reflection proposed that wait for a
// person: the open requests (SkipConfirmations of the executor's state,
// numbered by SkipSeq), which they alone write, and their answers until
// they are settled. The run never continues as new while one is open.
type confirmations struct {
	st  *signals.ExecutionState
	x   skipper
	run reporter
	log eventLog
	// ex is the request's execution policy: the confirmations' timeout
	// and its outcome.
	ex signals.ExecutionPolicy
	// answers holds the answers to open requests until resolve applies
	// them.
	answers map[string]skipAnswer
	// settled counts requests settled in their own coroutine, so that
	// the executor wakes up to launch the steps they held.
	settled int
}

// skipper is what the confirmations ask of the executor: the plan, and to
// skip steps a person approved skipping.
type skipper interface {
	plan() *plan.Plan
	applySkip(ctx workflow.Context, ids []string, actor plan.Actor, reason string)
}

// skipAnswer is how a skip confirmation was answered: by a person, or by
// its deadline's default outcome.
type skipAnswer struct {
	approve bool
	byUser  bool
	by      string
	note    string
}

// ask asks a person whether to skip ids, as refl proposes: the request
// opens, and a coroutine of its own waits for the answer and settles it.
// Meanwhile the steps it concerns and their dependents wait (see held)
// and the other steps go on.
func (k *confirmations) ask(ctx workflow.Context, ids []string, refl plan.Reflection) {
	c := k.open(ctx, ids, refl)
	k.run.publish(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if err := k.resolve(ctx, c); err != nil {
			return // cancelled: the run's end settles the rest
		}
		k.settled++
	})
}

// held lists the steps open requests hold back: the steps they ask to
// skip and those that depend on them (plan.Plan.Held).
func (k *confirmations) held() []string {
	st := k.st
	if len(st.SkipConfirmations) == 0 {
		return nil
	}
	var ids []string
	for _, c := range st.SkipConfirmations {
		ids = append(ids, c.StepIDs...)
	}
	return st.Plan.Held(ids)
}

// open opens a confirmation request with a deterministic id.
func (k *confirmations) open(ctx workflow.Context, ids []string, refl plan.Reflection) signals.SkipConfirmation {
	k.st.SkipSeq++
	c := signals.SkipConfirmation{
		RequestID:      fmt.Sprintf("skip-%d", k.st.SkipSeq),
		StepIDs:        ids,
		Reason:         refl.Reason,
		Confidence:     refl.Confidence,
		DefaultApprove: k.ex.OnConfirmTimeout == signals.OnTimeoutApprove,
	}
	if t := k.ex.ConfirmTimeout.D(); t > 0 {
		dl := workflow.Now(ctx).Add(t)
		c.Deadline = &dl
	}
	k.st.SkipConfirmations = append(k.st.SkipConfirmations, c)
	k.log.record(ctx, signals.EventAwaitingConfirmation, nil, fmt.Sprintf("confirm skipping %s (confidence %.2f): %s", strings.Join(ids, ", "), c.Confidence, c.Reason),
		activities.NotifyData{Skip: &c})
	return c
}

// resolve waits for the answer to c (or its deadline, whose default
// outcome then applies) and skips the steps when approved.
func (k *confirmations) resolve(ctx workflow.Context, c signals.SkipConfirmation) error {
	k.run.publish(ctx)
	answered := func() bool { _, ok := k.answers[c.RequestID]; return ok }
	if c.Deadline == nil {
		if err := workflow.Await(ctx, answered); err != nil {
			return err
		}
	} else {
		wait := c.Deadline.Sub(workflow.Now(ctx))
		ok := answered()
		if !ok && wait > 0 {
			var err error
			if ok, err = workflow.AwaitWithTimeout(ctx, wait, answered); err != nil {
				return err
			}
		}
		if !ok {
			k.answers[c.RequestID] = skipAnswer{approve: c.DefaultApprove, note: "no answer before the deadline: default outcome"}
		}
	}
	ans := k.answers[c.RequestID]
	k.drop(c.RequestID)
	k.answered(ctx, c, ans)
	if ans.approve {
		actor := plan.ActorSystem
		if ans.byUser {
			actor = signals.Caller(ans.by)
		}
		reason := c.Reason
		if ans.note != "" {
			reason = fmt.Sprintf("%s (%s)", reason, ans.note)
		}
		k.x.applySkip(ctx, pendingOf(k.x.plan(), c.StepIDs), actor, reason)
	}
	k.run.publish(ctx)
	return nil
}

// answered records how confirmation c was answered: by a person, or by
// its deadline's default outcome.
func (k *confirmations) answered(ctx workflow.Context, c signals.SkipConfirmation, ans skipAnswer) {
	by := plan.ActorSystem
	if ans.byUser {
		by = signals.Caller(ans.by)
	}
	verdict := "declined"
	if ans.approve {
		verdict = "approved"
	}
	k.log.record(ctx, signals.EventConfirmationAnswered, nil,
		fmt.Sprintf("skip of %s %s by %s", strings.Join(c.StepIDs, ", "), verdict, by),
		confirmationAnswered{RequestID: c.RequestID, StepIDs: c.StepIDs, Approved: ans.approve, By: string(by), Note: ans.note})
}

// drop removes a settled request and its answer. It builds a new list:
// the old one may be shared with the request's checkpoint.
func (k *confirmations) drop(id string) {
	st := k.st
	var out []signals.SkipConfirmation
	for _, c := range st.SkipConfirmations {
		if c.RequestID != id {
			out = append(out, c)
		}
	}
	st.SkipConfirmations = out
	delete(k.answers, id)
}

// dropAll forgets every request: the run is finishing.
func (k *confirmations) dropAll() {
	k.st.SkipConfirmations = nil
	clear(k.answers)
}

// resolveRestored settles the requests a checkpoint carried over.
func (k *confirmations) resolveRestored(ctx workflow.Context) error {
	st := k.st
	for len(st.SkipConfirmations) > 0 {
		if err := k.resolve(ctx, st.SkipConfirmations[0]); err != nil {
			return err
		}
	}
	return nil
}

// pending finds an unanswered request by id.
func (k *confirmations) pending(id string) (signals.SkipConfirmation, bool) {
	if _, answered := k.answers[id]; answered {
		return signals.SkipConfirmation{}, false
	}
	for _, c := range k.st.SkipConfirmations {
		if c.RequestID == id {
			return c, true
		}
	}
	return signals.SkipConfirmation{}, false
}

// answer records the answer to the open request id; settle applies it.
func (k *confirmations) answer(id string, ans skipAnswer) {
	k.answers[id] = ans
}

// validateConfirm accepts answers to pending skip requests only.
func (k *confirmations) validateConfirm(req signals.ConfirmSkipRequest) error {
	if err := tooLong("note", req.Note); err != nil {
		return err
	}
	if _, ok := k.pending(req.RequestID); ok {
		return nil
	}
	ids := make([]string, 0, len(k.st.SkipConfirmations))
	for _, sc := range k.st.SkipConfirmations {
		ans, answered := k.answers[sc.RequestID]
		if sc.RequestID == req.RequestID {
			// Answered in this workflow task, not settled yet.
			return reject(signals.ErrorTypeWrongPhase, "skip request %q is already answered (%s)", sc.RequestID, approvedWord(ans.approve))
		}
		if !answered {
			ids = append(ids, sc.RequestID)
		}
	}
	if len(ids) == 0 {
		return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q: no skip confirmation is pending", req.RequestID)
	}
	return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q (pending: %s)", req.RequestID, strings.Join(ids, ", "))
}

// confirm answers a pending skip request.
func (k *confirmations) confirm(_ workflow.Context, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error) {
	sc, ok := k.pending(req.RequestID)
	if !ok {
		return signals.ConfirmSkipResponse{}, k.validateConfirm(req)
	}
	who := string(signals.Caller(req.By))
	ans := skipAnswer{approve: req.Approve, byUser: true, by: req.By, note: "confirmed by " + who}
	if !req.Approve {
		ans.note = "denied by " + who
	}
	if req.Note != "" {
		ans.note += ": " + req.Note
	}
	k.answer(sc.RequestID, ans)
	return signals.ConfirmSkipResponse{RequestID: sc.RequestID, Approved: ans.approve, StepIDs: sc.StepIDs}, nil
}

// approvedWord names a confirmation's answer.
func approvedWord(approve bool) string {
	if approve {
		return "approved"
	}
	return "denied"
}
