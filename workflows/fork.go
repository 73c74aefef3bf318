package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/signals"
)

// forkFrom reads the plan a fork starts from (StartRequest.Fork) before
// anything else: the goal it goes on with unless the request names
// another, and then, unless the request hands in a plan, the parent's
// steps not done after the step, as the plan to run. The parent's files
// are taken once the fork holds its workspace (forkFiles).
func (r *run) forkFrom(ctx workflow.Context) error {
	f := r.req.Fork
	src, err := call(readCtx(ctx, "read the plan forked from"), a.ForkSource,
		activities.ForkSourceInput{PlanID: f.PlanID, StepID: f.StepID})
	if err != nil {
		return fmt.Errorf("fork of %s after step %s: %w", f.PlanID, f.StepID, err)
	}
	r.st.ForkedFrom = f
	if r.req.Goal == "" || r.req.Goal == src.Goal {
		r.req.Goal = src.Goal
		if r.req.Plan == nil {
			if len(src.Steps) == 0 {
				return fmt.Errorf("fork of %s after step %s: no step is left to run; give the fork a goal of its own "+
					"to plan afresh on those files", f.PlanID, f.StepID)
			}
			r.req.Plan = &signals.ExternalPlan{Title: src.Title, Steps: src.Steps}
		}
	}
	r.st.Goal = r.req.Goal
	return nil
}

// forkFiles takes the parent's files into the fork's own workspace, once
// the fork holds it: they are the plan's files from then on. The activity
// reads them from the parent again, so that no manifest the start request
// names can be taken in.
func (r *run) forkFiles(ctx workflow.Context) error {
	if r.st.ForkedFrom == nil || r.exec.filesRef().Manifest != "" {
		return nil
	}
	in := activities.ForkInput{PlanID: r.workflowID, Workspace: r.req.Workspace, From: *r.st.ForkedFrom}
	out, err := call(ownPriority(heartbeatCtx(ctx, toolStartToClose, "take the files forked from "+r.st.ForkedFrom.PlanID)),
		a.ForkWorkspace, in)
	if err != nil {
		return fmt.Errorf("take the files of %s: %w", r.st.ForkedFrom.PlanID, err)
	}
	r.exec.useFiles(out.Manifest)
	return nil
}
