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
// person: the open requests (st.SkipConfirmations, numbered by
// st.SkipSeq), which it alone writes, and their answers until they are
// settled. The run never continues as new while one is open.
type confirmations struct {
	e *executor
	// answers holds the answers to open requests until settle applies
	// them.
	answers map[string]skipAnswer
	// settled counts requests settled in their own coroutine, so that
	// the executor wakes up to launch the steps they held.
	settled int
}

// skipAnswer is how a skip confirmation was answered: by a person, or by
// its deadline's default outcome.
type skipAnswer struct {
	approve bool
	byUser  bool
	by      string
	note    string
}

// propose handles a skip decision: applied at once, asked of a person
// or dropped, as the execution mode says. While a person is asked, the
// steps the skip concerns and their dependents wait for the answer (see
// held) and the other steps go on; a coroutine settles the answer.
func (k *confirmations) propose(ctx workflow.Context, refl plan.Reflection) error {
	e := k.e
	ids := pendingOf(e.r.st.Plan, refl.StepIDs)
	if len(ids) == 0 {
		e.rejectReflection(ctx, refl, fmt.Errorf("no pending step among %s", strings.Join(refl.StepIDs, ", ")))
		return nil
	}
	ex := e.r.req.Execution
	switch policyFor(ex, refl.Confidence) {
	case skipDrop:
		e.rejectReflection(ctx, refl, fmt.Errorf("confidence %.2f below threshold %.2f in efficient mode: skip dropped",
			refl.Confidence, ex.SkipConfidenceThreshold))
		return nil
	case skipApply:
		e.applySkip(ctx, ids, plan.ActorReflection, refl.Reason)
		return nil
	}
	c := k.open(ctx, ids, refl)
	e.r.publish(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		if err := k.settle(ctx, c); err != nil {
			return // cancelled: the run's end settles the rest
		}
		k.settled++
	})
	return nil
}

// held lists the steps open requests hold back: the steps they ask to
// skip and those that depend on them (plan.Plan.Held).
func (k *confirmations) held() []string {
	st := &k.e.r.st
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
	r := k.e.r
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
	r.hooks.notify(ctx, activities.EventAwaitingConfirmation, activities.NotifyData{
		Message: fmt.Sprintf("confirm skipping %s (confidence %.2f): %s", strings.Join(ids, ", "), c.Confidence, c.Reason),
		Skip:    &c,
	})
	return c
}

// settle waits for the answer to c (or its deadline, whose default
// outcome then applies) and skips the steps when approved.
func (k *confirmations) settle(ctx workflow.Context, c signals.SkipConfirmation) error {
	e := k.e
	e.r.publish(ctx)
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
	if ans.approve {
		actor := plan.ActorSystem
		if ans.byUser {
			actor = signals.Caller(ans.by)
		}
		reason := c.Reason
		if ans.note != "" {
			reason = fmt.Sprintf("%s (%s)", reason, ans.note)
		}
		e.applySkip(ctx, pendingOf(e.r.st.Plan, c.StepIDs), actor, reason)
	}
	e.r.publish(ctx)
	return nil
}

// drop removes a settled request and its answer. It builds a new list:
// the old one may be shared with the request's checkpoint.
func (k *confirmations) drop(id string) {
	st := &k.e.r.st
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
	k.e.r.st.SkipConfirmations = nil
	clear(k.answers)
}

// resolveRestored settles the requests a checkpoint carried over.
func (k *confirmations) resolveRestored(ctx workflow.Context) error {
	st := &k.e.r.st
	for len(st.SkipConfirmations) > 0 {
		if err := k.settle(ctx, st.SkipConfirmations[0]); err != nil {
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
	for _, c := range k.e.r.st.SkipConfirmations {
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

// applySkip skips ids and publishes the change.
func (e *executor) applySkip(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	e.skipSteps(ctx, ids, actor, reason)
	e.r.publish(ctx)
}

// skipSteps skips ids on actor's behalf, recording a failure as the last
// error. It does not publish: the run's end settles steps this way and
// publishes once.
func (e *executor) skipSteps(ctx workflow.Context, ids []string, actor plan.Actor, reason string) {
	if len(ids) == 0 {
		return
	}
	if err := e.r.st.Plan.Skip(ids, plan.Change{Actor: actor, Reason: reason, At: workflow.Now(ctx), Within: e.r.lim}); err != nil {
		e.r.noteError(fmt.Sprintf("skip %s: %v", strings.Join(ids, ", "), err))
	}
}
