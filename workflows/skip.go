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
func (r *run) policyFor(confidence float64) skipPolicy {
	ex := r.req.Execution
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

// proposeSkip handles a skip decision: applied at once, asked of a person
// or dropped, as the execution mode says. While a person is asked, the
// steps the skip concerns and their dependents wait for the answer (see
// held) and the other steps go on; a coroutine settles the answer.
func (r *run) proposeSkip(ctx workflow.Context, refl plan.Reflection) error {
	ids := r.pendingOf(refl.StepIDs)
	if len(ids) == 0 {
		r.rejectReflection(ctx, refl, fmt.Errorf("no pending step among %s", strings.Join(refl.StepIDs, ", ")))
		return nil
	}
	switch r.policyFor(refl.Confidence) {
	case skipDrop:
		r.rejectReflection(ctx, refl, fmt.Errorf("confidence %.2f below threshold %.2f in efficient mode: skip dropped",
			refl.Confidence, r.req.Execution.SkipConfidenceThreshold))
		return nil
	case skipApply:
		r.applySkip(ctx, ids, plan.ActorReflection, refl.Reason)
		return nil
	}
	c := r.newConfirmation(ctx, ids, refl)
	r.publish(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if err := r.settle(ctx, c); err != nil {
			return // cancelled: the run's end settles the rest
		}
		r.exec.settled++
	})
	return nil
}

// held lists the steps open skip confirmations hold back: the steps they
// ask to skip and those that depend on them (plan.Plan.Held).
func (r *run) held() []string {
	if len(r.st.SkipConfirmations) == 0 {
		return nil
	}
	var ids []string
	for _, c := range r.st.SkipConfirmations {
		ids = append(ids, c.StepIDs...)
	}
	return r.st.Plan.Held(ids)
}

// newConfirmation opens a confirmation request with a deterministic id.
func (r *run) newConfirmation(ctx workflow.Context, ids []string, refl plan.Reflection) signals.SkipConfirmation {
	r.st.SkipSeq++
	c := signals.SkipConfirmation{
		RequestID:      fmt.Sprintf("skip-%d", r.st.SkipSeq),
		StepIDs:        ids,
		Reason:         refl.Reason,
		Confidence:     refl.Confidence,
		DefaultApprove: r.req.Execution.OnConfirmTimeout == signals.OnTimeoutApprove,
	}
	if t := r.req.Execution.ConfirmTimeout.D(); t > 0 {
		dl := workflow.Now(ctx).Add(t)
		c.Deadline = &dl
	}
	r.st.SkipConfirmations = append(r.st.SkipConfirmations, c)
	r.notify(ctx, activities.EventAwaitingConfirmation, activities.NotifyData{
		Message: fmt.Sprintf("confirm skipping %s (confidence %.2f): %s", strings.Join(ids, ", "), c.Confidence, c.Reason),
		Skip:    &c,
	})
	return c
}

// settle waits for the answer to c (or its deadline, whose default
// outcome then applies) and skips the steps when approved.
func (r *run) settle(ctx workflow.Context, c signals.SkipConfirmation) error {
	r.publish(ctx)
	answered := func() bool { _, ok := r.exec.answers[c.RequestID]; return ok }
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
			r.exec.answers[c.RequestID] = skipAnswer{approve: c.DefaultApprove, note: "no answer before the deadline: default outcome"}
		}
	}
	ans := r.exec.answers[c.RequestID]
	r.dropConfirmation(c.RequestID)
	if ans.approve {
		actor := plan.ActorSystem
		if ans.byUser {
			actor = signals.Caller(ans.by)
		}
		reason := c.Reason
		if ans.note != "" {
			reason = fmt.Sprintf("%s (%s)", reason, ans.note)
		}
		r.applySkip(ctx, r.pendingOf(c.StepIDs), actor, reason)
	}
	r.publish(ctx)
	return nil
}

// applySkip skips ids and publishes the change.
func (r *run) applySkip(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	r.skipSteps(ctx, ids, actor, reason)
	r.publish(ctx)
}

// skipSteps skips ids on actor's behalf, recording a failure as the last
// error. It does not publish: the run's end settles steps this way and
// publishes once.
func (r *run) skipSteps(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	if err := r.st.Plan.Skip(ids, plan.Change{Actor: actor, Reason: reason, At: workflow.Now(ctx), Within: r.limits()}); err != nil {
		r.st.LastError = fmt.Sprintf("skip %s: %v", strings.Join(ids, ", "), err)
	}
}

// dropConfirmation removes a settled request and its answer. It builds
// a new list: the old one may be shared with the request's checkpoint.
func (r *run) dropConfirmation(id string) {
	var out []signals.SkipConfirmation
	for _, c := range r.st.SkipConfirmations {
		if c.RequestID != id {
			out = append(out, c)
		}
	}
	r.st.SkipConfirmations = out
	delete(r.exec.answers, id)
}

// resolveRestoredSkips settles confirmations a checkpoint carried over.
func (r *run) resolveRestoredSkips(ctx workflow.Context) error {
	for len(r.st.SkipConfirmations) > 0 {
		if err := r.settle(ctx, r.st.SkipConfirmations[0]); err != nil {
			return err
		}
	}
	return nil
}

// pendingConfirmation finds an unanswered request by id.
func (r *run) pendingConfirmation(id string) (signals.SkipConfirmation, bool) {
	if _, answered := r.exec.answers[id]; answered {
		return signals.SkipConfirmation{}, false
	}
	for _, c := range r.st.SkipConfirmations {
		if c.RequestID == id {
			return c, true
		}
	}
	return signals.SkipConfirmation{}, false
}

// validateConfirm accepts answers to pending requests only.
func (r *run) validateConfirm(req signals.ConfirmSkipRequest) error {
	if err := tooLong("note", req.Note); err != nil {
		return err
	}
	if _, ok := r.pendingConfirmation(req.RequestID); ok {
		return nil
	}
	ids := make([]string, 0, len(r.st.SkipConfirmations))
	for _, c := range r.st.SkipConfirmations {
		ans, answered := r.exec.answers[c.RequestID]
		if c.RequestID == req.RequestID {
			// Answered in this workflow task, not settled yet.
			return reject(signals.ErrorTypeWrongPhase, "skip request %q is already answered (%s)", c.RequestID, approvedWord(ans.approve))
		}
		if !answered {
			ids = append(ids, c.RequestID)
		}
	}
	if len(ids) == 0 {
		return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q: no skip confirmation is pending", req.RequestID)
	}
	return reject(signals.ErrorTypeUnknownRequest, "unknown skip request %q (pending: %s)", req.RequestID, strings.Join(ids, ", "))
}

// confirm answers a pending skip request.
func (r *run) confirm(ctx workflow.Context, req signals.ConfirmSkipRequest) (signals.ConfirmSkipResponse, error) {
	c, ok := r.pendingConfirmation(req.RequestID)
	if !ok {
		return signals.ConfirmSkipResponse{}, r.validateConfirm(req)
	}
	who := string(signals.Caller(req.By))
	ans := skipAnswer{approve: req.Approve, byUser: true, by: req.By, note: "confirmed by " + who}
	if !req.Approve {
		ans.note = "denied by " + who
	}
	if req.Note != "" {
		ans.note += ": " + req.Note
	}
	r.exec.answers[c.RequestID] = ans
	return signals.ConfirmSkipResponse{RequestID: c.RequestID, Approved: ans.approve, StepIDs: c.StepIDs}, nil
}

// approvedWord names a confirmation's answer.
func approvedWord(approve bool) string {
	if approve {
		return "approved"
	}
	return "denied"
}
