package activities

import (
	"context"

	"github.com/planmode/planmode/planread"
	"github.com/planmode/planmode/signals"
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
// worker is dropped; the merge itself needs no folder. A worker without
// a files store refuses (ErrorTypeWorkspace).
func (w *Workspaces) MergeWorkspace(ctx context.Context, in MergeInput) (MergeOutput, error) {
	m, err := w.folders().Merge(ctx, in.Workspace, in.StepID, pinFor(ctx, in.PlanID), in.Base, in.Ours, in.Theirs)
	if err != nil {
		return MergeOutput{}, refusal(err)
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
// manifest of the files that step left. The planread package owns its
// shape.
type ForkSourceOutput = planread.Fork

// ForkSource reads the parent of a fork, open (its plan query) or ended
// (its Result), without changing it. An unknown plan is a non-retryable
// ErrorTypePlanNotFound, a step that did not complete or has no recorded
// files a non-retryable ErrorTypeNoSnapshot.
func (w *Workspaces) ForkSource(ctx context.Context, in ForkSourceInput) (ForkSourceOutput, error) {
	src, err := planread.ForkSource(ctx, w.client(ctx), in.PlanID, in.StepID)
	return src, readError(err)
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
// fork's folder to it. A worker without a files store refuses
// (ErrorTypeWorkspace) before it reads the parent.
func (w *Workspaces) ForkWorkspace(ctx context.Context, in ForkInput) (ForkOutput, error) {
	if w.folders().Files == nil {
		return ForkOutput{}, fail(ErrorTypeWorkspace, nil, "the worker keeps no files store: plans cannot be forked")
	}
	src, err := planread.ForkSource(ctx, w.client(ctx), in.From.PlanID, in.From.StepID)
	if err != nil {
		return ForkOutput{}, readError(err)
	}
	id, err := w.folders().Adopt(ctx, in.Workspace, src.Manifest, pinFor(ctx, in.PlanID))
	if err != nil {
		return ForkOutput{}, refusal(err)
	}
	return ForkOutput{Manifest: id}, nil
}
