package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// reflectionInput names reflection decisions in the rejected-inputs list.
const reflectionInput = "reflection"

// reflectOn asks the Reflect activity what to do after step id and applies
// its decision. A failing reflection is recorded and execution continues;
// only a cancellation is returned.
func (r *run) reflectOn(ctx workflow.Context, id string) error {
	s := r.st.Plan.StepByID(id)
	if s == nil || s.Status == plan.StepCancelled {
		return nil
	}
	defer r.compact(id)
	if reason := r.llmBudget(ctx); reason != "" {
		// Over budget with stop: execution halts, nothing to decide.
		return nil
	}
	remaining, more := r.st.Plan.NotDone()
	// The context carries the goal (bounded): ReflectInput.Goal stays
	// empty rather than carry it a second time.
	in := activities.ReflectInput{
		Context:       plan.BuildStepContext(r.st.Goal, r.st.Plan, id),
		Result:        s.Result,
		Remaining:     remaining,
		RemainingMore: more,
		Mode:          string(r.req.Execution.Mode),
		Prompts:       r.prompts,
		Workspace:     r.req.Workspace,
	}
	refl, err := reflect(ctx, in, fmt.Sprintf("reflect after step %d", s.Number))
	if err != nil {
		return r.softFail(ctx, fmt.Sprintf("reflect after step %s", id), err)
	}
	r.addUsage(refl.Usage)
	if r.exec.completedEarly {
		// A parallel step ended the plan while this reflection ran:
		// nothing is left to decide.
		return nil
	}
	return r.applyReflection(ctx, refl)
}

// compact cuts step id's result to what the plan keeps of a done step
// (plan.Plan.CompactResult). A step's
// reflection has read the whole output by now; the activity result in
// history and the worker's output file (OutputRef) hold it whole.
func (r *run) compact(id string) {
	if r.st.Plan != nil {
		r.st.Plan.CompactResult(id)
	}
}

// compactAll compacts every done step's result: before the state is
// handed on or the Result returned, when no step waits for its
// reflection.
func (r *run) compactAll() {
	if r.st.Plan == nil {
		return
	}
	for _, s := range r.st.Plan.Steps {
		r.st.Plan.CompactResult(s.ID)
	}
}

// applyReflection carries out a reflection's decision. Changes that fail
// are recorded as rejected reflection inputs; execution goes on.
func (r *run) applyReflection(ctx workflow.Context, refl plan.Reflection) error {
	change := plan.Change{Actor: plan.ActorReflection, Reason: refl.Reason, At: workflow.Now(ctx), Within: r.limits()}
	var err error
	switch refl.Decision {
	case plan.DecisionContinue, "":
		return nil
	case plan.DecisionSkip:
		return r.proposeSkip(ctx, refl)
	case plan.DecisionInsert, plan.DecisionAppend, plan.DecisionRemove, plan.DecisionUpdate:
		err = r.changePlan(func(p *plan.Plan) error { return p.Apply(refl.Edits, change) })
	case plan.DecisionReplan:
		err = r.changePlan(func(p *plan.Plan) error { return p.Replan(refl.Steps, change) })
	case plan.DecisionComplete:
		r.complete(ctx, refl)
	default:
		err = fmt.Errorf("unknown decision %q", refl.Decision)
	}
	if err != nil {
		r.rejectReflection(ctx, refl, err)
		return nil
	}
	r.publish(ctx)
	if refl.Decision != plan.DecisionComplete {
		r.notifyChange(ctx, activities.EventPlanUpdated, fmt.Sprintf("plan version %d: %s by the reflection: %s",
			r.st.Plan.Version, refl.Decision, refl.Reason), nil)
	}
	return nil
}

// changePlan applies fn to a clone of the plan and keeps the clone only
// when fn succeeds and the result is valid, so a failed change leaves the
// plan untouched.
func (r *run) changePlan(fn func(*plan.Plan) error) error {
	c, err := r.tryChange(fn)
	if err != nil {
		return err
	}
	*r.st.Plan = c
	return nil
}

// tryChange is changePlan's dry run: it returns the changed clone.
func (r *run) tryChange(fn func(*plan.Plan) error) (plan.Plan, error) {
	c := r.st.Plan.Clone()
	if err := fn(&c); err != nil {
		return plan.Plan{}, err
	}
	if res := plan.Validate(c, r.limits()); !res.Valid {
		return plan.Plan{}, fmt.Errorf("the changed plan is invalid: %s", strings.Join(issueTexts(res.Errors), "; "))
	}
	return c, nil
}

// limits are the run's limits every validation and every plan change
// keeps: its maxSteps and the built-in tools.
func (r *run) limits() plan.Limits {
	return plan.Limits{MaxSteps: r.req.Execution.MaxSteps, Tools: plan.BuiltinTools()}
}

// rejectReflection records a reflection decision that could not apply.
func (r *run) rejectReflection(ctx workflow.Context, refl plan.Reflection, err error) {
	r.record(ctx, signals.Rejection{
		At:     workflow.Now(ctx),
		Name:   fmt.Sprintf("%s:%s", reflectionInput, refl.Decision),
		Reason: err.Error(),
	})
}

// complete skips every pending step: the reflection found the goal met.
func (r *run) complete(ctx workflow.Context, refl plan.Reflection) {
	reason := refl.Response
	if reason == "" {
		reason = refl.Reason
	}
	r.completeEarly(ctx, plan.ActorReflection, "goal achieved: "+reason)
}

// completeEarly ends execution before the plan's end: no step starts any
// more and every pending one is skipped with reason, on actor's behalf.
// Running steps finish; the run then completes and is summarized.
func (r *run) completeEarly(ctx workflow.Context, actor plan.Actor, reason string) {
	r.exec.completedEarly = true
	var ids []string
	for _, s := range r.st.Plan.Steps {
		if s.Status == plan.StepPending {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	change := plan.Change{Actor: actor, Reason: reason, At: workflow.Now(ctx), Within: r.limits()}
	if err := r.st.Plan.Skip(ids, change); err != nil {
		r.st.LastError = fmt.Sprintf("complete: skip remaining steps: %v", err)
	}
}

// pendingOf keeps the ids of steps that are still pending.
func (r *run) pendingOf(ids []string) []string {
	var out []string
	for _, id := range ids {
		if s := r.st.Plan.StepByID(id); s != nil && s.Status == plan.StepPending {
			out = append(out, id)
		}
	}
	return out
}
