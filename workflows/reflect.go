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
	s := e.step(id)
	if s == nil || s.Status == plan.StepCancelled {
		return nil
	}
	// The reflection reads the step's whole output; afterwards the plan
	// keeps a head of it, while the activity result in history and the
	// worker's output file (OutputRef) hold it whole.
	defer func() { compact(e.st.Plan, e.step(id)) }()
	if e.reflectionSkipped(ctx, s) {
		return nil
	}
	if reason := e.budget.beforeLLM(ctx); reason != "" {
		// Over budget with stop: execution halts, nothing to decide.
		return nil
	}
	remaining, more := e.st.Plan.NotDone()
	// The context carries the goal (bounded): ReflectInput.Goal stays
	// empty rather than carry it a second time. Its next steps are left
	// out: Remaining lists every step not done, those first.
	sc := plan.BuildStepContext(e.run.goal(), e.st.Plan, id)
	sc.After, sc.LaterCount = nil, 0
	in := activities.ReflectInput{
		Context:       sc,
		Result:        s.Result,
		Remaining:     remaining,
		RemainingMore: more,
		Mode:          string(e.ex.Mode),
		Prompts:       e.prompts,
		Workspace:     e.workspace,
		Inspect:       e.run.recorded().inspectMCP(),
		Files:         e.filesRef(),
	}
	refl, err := reflect(ctx, in, fmt.Sprintf("reflect after step %d", s.Number))
	if err != nil {
		return softFail(ctx, e.run, fmt.Sprintf("reflect after step %s", id), err)
	}
	e.run.addUsage(ctx, activities.PhaseReflect, refl.Usage)
	decision := refl.Decision
	if decision == "" {
		decision = plan.DecisionContinue
	}
	e.log.record(ctx, signals.EventReflectionDecided, s, fmt.Sprintf("after step %d: %s: %s", s.Number, decision, refl.Reason),
		reflectionDecided{Decision: decision, Reason: refl.Reason, Confidence: refl.Confidence})
	if e.stop.kind == haltGoal {
		// A parallel step ended the plan while this reflection ran:
		// nothing is left to decide.
		return nil
	}
	return e.applyReflection(ctx, refl)
}

// applyReflection carries out a reflection's decision. Changes that fail
// are recorded as rejected reflection inputs; execution goes on. A
// reflection that finds the goal met halts execution: every pending step
// is skipped.
func (e *executor) applyReflection(ctx workflow.Context, refl plan.Reflection) error {
	change := plan.Change{Actor: plan.ActorReflection, Reason: refl.Reason, At: workflow.Now(ctx), Within: e.run.limits()}
	var err error
	switch refl.Decision {
	case plan.DecisionContinue, "":
		return nil
	case plan.DecisionSkip:
		e.propose(ctx, refl)
		return nil
	case plan.DecisionInsert, plan.DecisionAppend, plan.DecisionRemove, plan.DecisionUpdate:
		err = e.changePlan(ctx, func(p *plan.Plan) error { return p.Apply(refl.Edits, change) })
	case plan.DecisionReplan:
		err = e.changePlan(ctx, func(p *plan.Plan) error { return p.Replan(refl.Steps, change) })
	case plan.DecisionComplete:
		reason := refl.Response
		if reason == "" {
			reason = refl.Reason
		}
		e.halt(ctx, halt{kind: haltGoal, by: plan.ActorReflection, reason: "goal achieved: " + reason})
	default:
		err = fmt.Errorf("unknown decision %q", refl.Decision)
	}
	if err != nil {
		e.rejectReflection(ctx, refl, err)
		return nil
	}
	e.run.publish(ctx)
	if refl.Decision != plan.DecisionComplete {
		e.log.record(ctx, signals.EventPlanUpdated, nil, fmt.Sprintf("plan version %d: %s by the reflection: %s",
			e.st.Plan.Version, refl.Decision, refl.Reason),
			planUpdated{Version: e.st.Plan.Version, By: string(plan.ActorReflection), Reason: refl.Reason})
	}
	return nil
}

// propose handles a reflection's skip decision: applied at once, asked of
// a person or dropped, as the execution mode says (policyFor). While a
// person is asked, the steps the skip concerns and their dependents wait
// for the answer (confirmations.held) and the other steps go on.
func (e *executor) propose(ctx workflow.Context, refl plan.Reflection) {
	ids := pendingOf(e.st.Plan, refl.StepIDs)
	if len(ids) == 0 {
		e.rejectReflection(ctx, refl, fmt.Errorf("no pending step among %s", strings.Join(refl.StepIDs, ", ")))
		return
	}
	switch policyFor(e.ex, refl.Confidence) {
	case skipDrop:
		e.rejectReflection(ctx, refl, fmt.Errorf("confidence %.2f below threshold %.2f in efficient mode: skip dropped",
			refl.Confidence, e.ex.SkipConfidenceThreshold))
	case skipApply:
		e.applySkip(ctx, ids, plan.ActorReflection, refl.Reason)
	default:
		e.skips.ask(ctx, ids, refl)
	}
}

// changePlan applies fn to a clone of the plan and keeps the clone only
// when fn succeeds and the result is valid, so a failed change leaves the
// plan untouched. Open approval requests are asked again under the new
// version.
func (e *executor) changePlan(ctx workflow.Context, fn func(*plan.Plan) error) error {
	c, err := tryChange(e.st.Plan, e.run.limits(), fn)
	if err != nil {
		return err
	}
	*e.st.Plan = c
	e.gate.reask(ctx)
	return nil
}

// rejectReflection records a reflection decision that could not apply.
func (e *executor) rejectReflection(ctx workflow.Context, refl plan.Reflection, err error) {
	e.inputs.record(ctx, signals.Rejection{
		At:     workflow.Now(ctx),
		Name:   fmt.Sprintf("%s:%s", reflectionInput, refl.Decision),
		Reason: err.Error(),
	})
}
