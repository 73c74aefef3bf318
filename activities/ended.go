package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Types of the errors PlanEnd refuses with; all non-retryable.
const (
	// ErrorTypePlanOpen is a plan that has not ended: its own rollback update
	// restores it.
	ErrorTypePlanOpen = "PlanOpen"
	// ErrorTypeNoSnapshot is an ended plan whose Result names no snapshot: it had
	// no workspace, ended before execution, was terminated, or ran before
	// Results carried the snapshot.
	ErrorTypeNoSnapshot = "NoSnapshot"
	// ErrorTypePlanNotFound is a plan id Temporal does not know.
	ErrorTypePlanNotFound = "PlanNotFound"
)

// MaxChangedPaths bounds the paths WorkspaceChangedSince lists.
const MaxChangedPaths = 50

// PlanEndInput names the ended plan a PlanRollback restores.
type PlanEndInput struct {
	PlanID string `json:"planId"`
	// StepID, when set, asks for the files as they were after that step
	// (its manifest) rather than before execution.
	StepID string `json:"stepId,omitempty"`
}

// PlanEndOutput is what a rollback needs of an ended plan.
type PlanEndOutput struct {
	// Status is Temporal's status of the plan's last run (Completed,
	// Failed, Canceled).
	Status     string    `json:"status"`
	ClosedAt   time.Time `json:"closedAt"`
	SnapshotID string    `json:"snapshotId"`
	Workspace  string    `json:"workspace"`
	// Manifest names the files as the plan left them; empty for a plan
	// whose files were not recorded.
	Manifest string `json:"manifest,omitempty"`
}

// PlanEnd reads how plan in.PlanID ended, through the worker's own
// Temporal client: its status and close time (of the last run of a
// continue-as-new chain) and, from its Result, the snapshot and workspace.
// A plan still open is an ErrorTypePlanOpen error, a plan without a snapshot in
// its Result an ErrorTypeNoSnapshot error, an unknown one an ErrorTypePlanNotFound
// error; all non-retryable.
func (a *Activities) PlanEnd(ctx context.Context, in PlanEndInput) (PlanEndOutput, error) {
	c := activity.GetClient(ctx)
	info, err := describePlan(ctx, c, in.PlanID)
	if err != nil {
		return PlanEndOutput{}, err
	}
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return PlanEndOutput{}, fail(ErrorTypePlanOpen, nil,
			fmt.Sprintf("plan %s is still open: roll it back with its rollback update", in.PlanID))
	}
	out := PlanEndOutput{Status: info.GetStatus().String(), ClosedAt: info.GetCloseTime().AsTime()}
	res, err := endedResult(ctx, c, in.PlanID, info.GetExecution().GetRunId())
	if err != nil {
		return out, fail(ErrorTypeNoSnapshot, err, fmt.Sprintf("plan %s ended %s without a Result: nothing names its snapshot",
			in.PlanID, out.Status))
	}
	if res.SnapshotID == "" {
		return out, fail(ErrorTypeNoSnapshot, nil, fmt.Sprintf("plan %s has no workspace snapshot: it had no workspace, "+
			"ended before execution, or ran before results named the snapshot", in.PlanID))
	}
	out.SnapshotID, out.Workspace, out.Manifest = res.SnapshotID, res.Workspace, res.Manifest
	if in.StepID != "" {
		id, err := stepManifest(res.Plan, in.StepID)
		if err != nil {
			return out, fail(ErrorTypeNoSnapshot, err, fmt.Sprintf("plan %s: %v", in.PlanID, err))
		}
		out.SnapshotID = id
	}
	return out, nil
}

// ChangedSinceInput asks what changed in a workspace after a time.
type ChangedSinceInput struct {
	Workspace string    `json:"workspace"`
	Since     time.Time `json:"since"`
	// Manifest, when set, names the files as the plan left them: what
	// differs from it changed since, whatever the times say.
	Manifest string `json:"manifest,omitempty"`
}

// ChangedSinceOutput lists the changed paths (see workspace.Root.ChangedSince),
// at most MaxChangedPaths, and counts the rest.
type ChangedSinceOutput struct {
	Paths []string `json:"paths,omitempty"`
	More  int      `json:"more,omitempty"`
}

// WorkspaceChangedSince lists the files of the workspace modified after
// in.Since, and the folders whose entries changed, so that a rollback of
// an ended plan can refuse to overwrite work done since.
func (a *Activities) WorkspaceChangedSince(ctx context.Context, in ChangedSinceInput) (ChangedSinceOutput, error) {
	if in.Manifest != "" && a.Files != nil {
		return a.changedFrom(ctx, in)
	}
	paths, more, err := a.Workspace.ChangedSince(ctx, in.Workspace, in.Since, MaxChangedPaths)
	if err != nil {
		return ChangedSinceOutput{}, refusal(err)
	}
	return ChangedSinceOutput{Paths: paths, More: more}, nil
}

// describePlan describes the latest run of plan id; an unknown plan is a
// non-retryable ErrorTypePlanNotFound.
func describePlan(ctx context.Context, c client.Client, id string) (*workflowpb.WorkflowExecutionInfo, error) {
	desc, err := c.DescribeWorkflow(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, fail(ErrorTypePlanNotFound, err, fmt.Sprintf("no plan %s", id))
	}
	if err != nil {
		return nil, fmt.Errorf("describe plan %s: %w", id, err)
	}
	return desc.RawResponse.GetWorkflowExecutionInfo(), nil
}

// endedResult reads the Result of run runID ("" for the latest) of the
// ended plan id, from a failed or cancelled run's error too; a run that
// ended without one is its error.
func endedResult(ctx context.Context, c client.Client, id, runID string) (signals.Result, error) {
	var res signals.Result
	err := c.GetWorkflow(ctx, id, runID).Get(ctx, &res)
	if err == nil {
		return res, nil
	}
	if res, ok := signals.ResultFromError(err); ok {
		return res, nil
	}
	return signals.Result{}, err
}

// stepManifest returns the manifest of p's step id: its files as they
// were once it ended.
func stepManifest(p *plan.Plan, id string) (string, error) {
	if p == nil {
		return "", fmt.Errorf("it has no plan, so no step %s", id)
	}
	for _, s := range p.Steps {
		if s.ID != id {
			continue
		}
		if s.Result == nil || s.Result.Manifest == "" {
			return "", fmt.Errorf("step %s (%s) has no recorded files", id, s.Status)
		}
		return s.Result.Manifest, nil
	}
	return "", fmt.Errorf("it has no step %s", id)
}

// changedFrom lists what differs between the workspace and the files the
// plan left (in.Manifest). A workspace this worker does not hold has
// nothing in it to lose.
func (a *Activities) changedFrom(ctx context.Context, in ChangedSinceInput) (ChangedSinceOutput, error) {
	f, err := a.open(ctx, in.Workspace, "", false, false)
	if err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.Type() == ErrorTypeWorkspace {
			return ChangedSinceOutput{}, nil
		}
		return ChangedSinceOutput{}, err
	}
	defer f.release()
	paths, more, err := a.Files.Changed(ctx, f.dir, in.Manifest, MaxChangedPaths)
	if err != nil {
		return ChangedSinceOutput{}, filesError("compare the workspace with the plan's files", err)
	}
	return ChangedSinceOutput{Paths: paths, More: more}, nil
}
