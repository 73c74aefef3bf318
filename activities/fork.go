package activities

import (
	"context"
	"fmt"
	"os"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace"
)

// MaxConflictsListed bounds the conflicting paths a merge lists in history.
const MaxConflictsListed = 50

// MergeInput merges what a step changed in its private copy (Theirs,
// started from Base) into the plan's files (Ours).
type MergeInput struct {
	PlanID    string `json:"planId"`
	Workspace string `json:"workspace"`
	StepID    string `json:"stepId"`
	Base      string `json:"base"`
	Ours      string `json:"ours"`
	Theirs    string `json:"theirs"`
}

// MergeOutput is the plan's files after the merge, and the paths the step
// changed in ways that clash with Ours (kept as Ours had them), at most
// MaxConflictsListed, ConflictsMore counting the rest.
type MergeOutput struct {
	Manifest      string   `json:"manifest"`
	Conflicts     []string `json:"conflicts,omitempty"`
	ConflictsMore int      `json:"conflictsMore,omitempty"`
}

// MergeWorkspace merges a step's changes three ways into the plan's files
// (see workspace.Files.Merge): disjoint changes merge silently, clashing
// ones keep the plan's side and are listed; nothing is lost, since the
// step's own files stay in its manifest. The step's private copy on this
// worker is dropped; the merge itself needs no folder.
func (a *Activities) MergeWorkspace(ctx context.Context, in MergeInput) (MergeOutput, error) {
	if a.Files == nil {
		return MergeOutput{}, fail(ErrorTypeWorkspace, nil, "the worker keeps no files store: steps cannot run side by side in copies")
	}
	f, err := a.open(ctx, in.Workspace, "", true, false)
	if err != nil {
		return MergeOutput{}, err
	}
	owner := f.owner
	f.release()
	m, err := a.Files.Merge(ctx, workspace.MergeRequest{Owner: owner, PlanID: pinFor(ctx, in.PlanID), Base: in.Base, Ours: in.Ours,
		Theirs: in.Theirs})
	if err != nil {
		return MergeOutput{}, filesError("merge step "+in.StepID+"'s files", err)
	}
	if in.StepID != "" {
		_ = os.RemoveAll(a.Files.CopyDir(owner, in.StepID))
	}
	out := MergeOutput{Manifest: m.ID, Conflicts: m.Conflicts}
	if len(out.Conflicts) > MaxConflictsListed {
		out.ConflictsMore = len(out.Conflicts) - MaxConflictsListed
		out.Conflicts = out.Conflicts[:MaxConflictsListed]
	}
	return out, nil
}

// ForkSourceInput names the plan and step a fork starts from.
type ForkSourceInput struct {
	PlanID string `json:"planId"`
	StepID string `json:"stepId"`
}

// ForkSourceOutput is what a fork takes from its parent: the goal, the
// title, the steps not done after the step (plan.ForkSteps) and the
// manifest of the files that step left.
type ForkSourceOutput struct {
	Goal     string      `json:"goal"`
	Title    string      `json:"title,omitempty"`
	Steps    []plan.Step `json:"steps,omitempty"`
	Manifest string      `json:"manifest"`
}

// ForkSource reads the parent of a fork, open (its plan query) or ended
// (its Result), without changing it. An unknown plan is a non-retryable
// ErrorTypePlanNotFound, a step that did not complete or has no recorded
// files a non-retryable ErrorTypeNoSnapshot.
func (a *Activities) ForkSource(ctx context.Context, in ForkSourceInput) (ForkSourceOutput, error) {
	return forkSource(ctx, in.PlanID, in.StepID)
}

// forkSource reads step stepID of plan planID for a fork (ForkSource).
func forkSource(ctx context.Context, planID, stepID string) (ForkSourceOutput, error) {
	in := ForkSourceInput{PlanID: planID, StepID: stepID}
	c := activity.GetClient(ctx)
	info, err := describePlan(ctx, c, in.PlanID)
	if err != nil {
		return ForkSourceOutput{}, err
	}
	var p *plan.Plan
	var goal string
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		v, err := signals.PlanQuery.Get(ctx, c, in.PlanID)
		if err != nil {
			return ForkSourceOutput{}, fmt.Errorf("read the plan of %s: %w", in.PlanID, err)
		}
		p, goal = v.Plan, v.Goal
	} else {
		res, err := endedResult(ctx, c, in.PlanID, "")
		if err != nil {
			return ForkSourceOutput{}, fail(ErrorTypeNoSnapshot, err, fmt.Sprintf("plan %s ended without a Result", in.PlanID))
		}
		p, goal = res.Plan, res.Goal
	}
	steps, manifest, err := plan.ForkSteps(p, in.StepID)
	if err != nil {
		return ForkSourceOutput{}, fail(ErrorTypeNoSnapshot, err, fmt.Sprintf("plan %s: %v", in.PlanID, err))
	}
	return ForkSourceOutput{Goal: goal, Title: p.Title, Steps: steps, Manifest: manifest}, nil
}

// ForkInput takes a fork's files into its own workspace.
type ForkInput struct {
	PlanID    string `json:"planId"`
	Workspace string `json:"workspace"`
	// From is the parent and step whose files the fork takes, read from
	// the parent again.
	From signals.ForkRef `json:"from"`
}

// ForkOutput names the fork's own manifest of those files.
type ForkOutput struct {
	Manifest string `json:"manifest"`
}

// ForkWorkspace adopts the parent's manifest as one of the fork's
// workspace (the same blobs, nothing copied in the store) and brings the
// fork's folder to it.
func (a *Activities) ForkWorkspace(ctx context.Context, in ForkInput) (ForkOutput, error) {
	if a.Files == nil {
		return ForkOutput{}, fail(ErrorTypeWorkspace, nil, "the worker keeps no files store: plans cannot be forked")
	}
	src, err := forkSource(ctx, in.From.PlanID, in.From.StepID)
	if err != nil {
		return ForkOutput{}, err
	}
	m, err := a.Files.Load(ctx, src.Manifest)
	if err != nil {
		return ForkOutput{}, filesError("read the parent's files", err)
	}
	f, err := a.open(ctx, in.Workspace, "", true, false)
	if err != nil {
		return ForkOutput{}, err
	}
	owner := f.owner
	f.release()
	id, err := a.Files.Adopt(ctx, src.Manifest, m.Owner, owner, pinFor(ctx, in.PlanID))
	if err != nil {
		return ForkOutput{}, filesError("adopt the parent's files", err)
	}
	if err := a.bringUp(ctx, in.Workspace, FilesRef{Manifest: id}); err != nil {
		return ForkOutput{}, err
	}
	return ForkOutput{Manifest: id}, nil
}
