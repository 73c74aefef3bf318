package main

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
)

// bareWorkflowType is the bare workflow's type name, registered only by
// the bench.
const bareWorkflowType = "BenchBare"

// a is the method-reference receiver of the activities.
var a activities.Set

// bareInput is what the bare workflow runs: a goal and its plan.
type bareInput struct {
	Goal string    `json:"goal"`
	Plan plan.Plan `json:"plan"`
}

// bareWorkflow is the floor PlanMode is measured against: for each step in
// order, ExecuteLLMStep then Reflect, then Summarize, with plain
// workflow.ExecuteActivity and the inputs PlanMode builds (the bounded
// step context, the first steps not done, the plan's digest), as
// PlanMode runs a plan in comparedMode. It has no
// state beyond the plan, no handlers, queries, search attributes or
// continue-as-new, and it ignores the reflections' decisions.
func bareWorkflow(ctx workflow.Context, in bareInput) (int, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	p := in.Plan
	for i := range p.Steps {
		id := p.Steps[i].ID
		res, err := bareCall(ctx, a.ExecuteLLMStep, activities.StepInput{PlanID: p.ID,
			Context: plan.BuildStepContext(in.Goal, &p, id)})
		if err != nil {
			return i, fmt.Errorf("step %s: %w", id, err)
		}
		p.Steps[i].Status, p.Steps[i].Result = plan.StepCompleted, &res
		remaining, more := p.NotDone()
		// As PlanMode's: the next steps are in Remaining, not the context.
		rc := plan.BuildStepContext(in.Goal, &p, id)
		rc.After, rc.LaterCount = nil, 0
		if _, err := bareCall(ctx, a.Reflect, activities.ReflectInput{Context: rc,
			Result: &res, Remaining: remaining, RemainingMore: more, Mode: string(comparedMode)}); err != nil {
			return i, fmt.Errorf("reflect after %s: %w", id, err)
		}
		p.CompactResult(id)
	}
	d := p.Digest()
	if _, err := bareCall(ctx, a.Summarize, activities.SummarizeInput{Goal: in.Goal, Digest: &d, Status: "completed"}); err != nil {
		return len(p.Steps), fmt.Errorf("summarize: %w", err)
	}
	return len(p.Steps), nil
}

// bareCall runs fn with a typed input and output.
func bareCall[In, Out any](ctx workflow.Context, fn func(context.Context, In) (Out, error), in In) (Out, error) {
	var out Out
	err := workflow.ExecuteActivity(ctx, fn, in).Get(ctx, &out)
	return out, err
}
