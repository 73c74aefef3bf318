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
func (e *executor) reflectOn(ctx workflow.Context, id string) error {
	r := e.r
	s := e.step(id)
	if s == nil || s.Status == plan.StepCancelled {
		return nil
	}
	// The reflection reads the step's whole output; afterwards the plan
	// keeps a head of it, while the activity result in history and the
	// worker's output file (OutputRef) hold it whole.
	defer func() { compact(r.st.Plan, e.step(id)) }()
	if reason := e.llmBudget(ctx); reason != "" {
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
		Inspect:       r.recorded().inspectMCP(),
		Files:         activities.FilesRef{Manifest: r.st.Manifest},
	}
	refl, err := reflect(ctx, in, fmt.Sprintf("reflect after step %d", s.Number))
	if err != nil {
		return r.softFail(ctx, fmt.Sprintf("reflect after step %s", id), err)
	}
	r.addUsage(refl.Usage)
	if e.completedEarly {
		// A parallel step ended the plan while this reflection ran:
		// nothing is left to decide.
		return nil
	}
	return e.applyReflection(ctx, refl)
}

// compactAll compacts every done step's result in p (nil: no plan yet):
// before the state is handed on or the Result returned, when no step
// waits for its reflection.
func compactAll(p *plan.Plan) {
	if p == nil {
		return
	}
	for i := range p.Steps {
		compact(p, &p.Steps[i])
	}
}

// compact cuts step s's result to what p keeps of a done step
// (plan.Plan.CompactResult). That looks up the step and searches the plan
// for a skip condition reading its output, both walks of the plan: it is
// asked only when the result is longer than what the plan keeps, which
// after its reflection no result is.
func compact(p *plan.Plan, s *plan.Step) {
	if s == nil || s.Result == nil {
		return
	}
	if len(s.Result.Output) > plan.KeptOutputBytes || len(s.Result.Error) > plan.KeptErrorBytes {
		p.CompactResult(s.ID)
	}
}

// applyReflection carries out a reflection's decision. Changes that fail
// are recorded as rejected reflection inputs; execution goes on.
func (e *executor) applyReflection(ctx workflow.Context, refl plan.Reflection) error {
	r := e.r
	change := plan.Change{Actor: plan.ActorReflection, Reason: refl.Reason, At: workflow.Now(ctx), Within: r.lim}
	var err error
	switch refl.Decision {
	case plan.DecisionContinue, "":
		return nil
	case plan.DecisionSkip:
		return e.skips.propose(ctx, refl)
	case plan.DecisionInsert, plan.DecisionAppend, plan.DecisionRemove, plan.DecisionUpdate:
		err = e.changePlan(ctx, func(p *plan.Plan) error { return p.Apply(refl.Edits, change) })
	case plan.DecisionReplan:
		err = e.changePlan(ctx, func(p *plan.Plan) error { return p.Replan(refl.Steps, change) })
	case plan.DecisionComplete:
		e.complete(ctx, refl)
	default:
		err = fmt.Errorf("unknown decision %q", refl.Decision)
	}
	if err != nil {
		e.rejectReflection(ctx, refl, err)
		return nil
	}
	r.publish(ctx)
	if refl.Decision != plan.DecisionComplete {
		r.hooks.change(ctx, activities.EventPlanUpdated, fmt.Sprintf("plan version %d: %s by the reflection: %s",
			r.st.Plan.Version, refl.Decision, refl.Reason), nil)
	}
	return nil
}

// changePlan applies fn to a clone of the plan and keeps the clone only
// when fn succeeds and the result is valid, so a failed change leaves the
// plan untouched.
func (e *executor) changePlan(ctx workflow.Context, fn func(*plan.Plan) error) error {
	c, err := tryChange(e.r.st.Plan, e.r.lim, fn)
	if err != nil {
		return err
	}
	*e.r.st.Plan = c
	e.gate.reask(ctx)
	return nil
}

// tryChange is changePlan's dry run on p within lim: it returns the
// changed clone.
func tryChange(p *plan.Plan, lim plan.Limits, fn func(*plan.Plan) error) (plan.Plan, error) {
	c := p.Clone()
	if err := fn(&c); err != nil {
		return plan.Plan{}, err
	}
	if res := plan.Validate(c, lim); !res.Valid {
		return plan.Plan{}, fmt.Errorf("the changed plan is invalid: %s", strings.Join(issueTexts(res.Errors), "; "))
	}
	return c, nil
}

// rejectReflection records a reflection decision that could not apply.
func (e *executor) rejectReflection(ctx workflow.Context, refl plan.Reflection, err error) {
	e.r.ctl.in.record(ctx, signals.Rejection{
		At:     workflow.Now(ctx),
		Name:   fmt.Sprintf("%s:%s", reflectionInput, refl.Decision),
		Reason: err.Error(),
	})
}

// complete skips every pending step: the reflection found the goal met.
func (e *executor) complete(ctx workflow.Context, refl plan.Reflection) {
	reason := refl.Response
	if reason == "" {
		reason = refl.Reason
	}
	e.completeEarly(ctx, plan.ActorReflection, "goal achieved: "+reason)
}

// completeEarly ends execution before the plan's end: no step starts any
// more and every pending one is skipped with reason, on actor's behalf.
// Running steps finish; the run then completes and is summarized.
func (e *executor) completeEarly(ctx workflow.Context, actor plan.Actor, reason string) {
	p := e.r.st.Plan
	e.completedEarly = true
	var ids []string
	for _, s := range p.Steps {
		if s.Status == plan.StepPending {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	change := plan.Change{Actor: actor, Reason: reason, At: workflow.Now(ctx), Within: e.r.lim}
	if err := p.Skip(ids, change); err != nil {
		e.r.noteError(fmt.Sprintf("complete: skip remaining steps: %v", err))
	}
}

// pendingOf keeps the ids of p's steps that are still pending.
func pendingOf(p *plan.Plan, ids []string) []string {
	var out []string
	for _, id := range ids {
		if s := p.StepByID(id); s != nil && s.Status == plan.StepPending {
			out = append(out, id)
		}
	}
	return out
}
