package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"

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
}

// PlanEndOutput is what a rollback needs of an ended plan.
type PlanEndOutput struct {
	// Status is Temporal's status of the plan's last run (Completed,
	// Failed, Canceled).
	Status     string    `json:"status"`
	ClosedAt   time.Time `json:"closedAt"`
	SnapshotID string    `json:"snapshotId"`
	Workspace  string    `json:"workspace"`
}

// PlanEnd reads how plan in.PlanID ended, through the worker's own
// Temporal client: its status and close time (of the last run of a
// continue-as-new chain) and, from its Result, the snapshot and workspace.
// A plan still open is an ErrorTypePlanOpen error, a plan without a snapshot in
// its Result an ErrorTypeNoSnapshot error, an unknown one an ErrorTypePlanNotFound
// error; all non-retryable.
func (a *Activities) PlanEnd(ctx context.Context, in PlanEndInput) (PlanEndOutput, error) {
	c := activity.GetClient(ctx)
	desc, err := c.DescribeWorkflow(ctx, in.PlanID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return PlanEndOutput{}, fail(ErrorTypePlanNotFound, err, fmt.Sprintf("no plan %s", in.PlanID))
	}
	if err != nil {
		return PlanEndOutput{}, fmt.Errorf("describe plan %s: %w", in.PlanID, err)
	}
	info := desc.RawResponse.GetWorkflowExecutionInfo()
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return PlanEndOutput{}, fail(ErrorTypePlanOpen, nil,
			fmt.Sprintf("plan %s is still open: roll it back with its rollback update", in.PlanID))
	}
	out := PlanEndOutput{Status: info.GetStatus().String(), ClosedAt: info.GetCloseTime().AsTime()}
	var res signals.Result
	err = c.GetWorkflow(ctx, in.PlanID, info.GetExecution().GetRunId()).Get(ctx, &res)
	if err != nil {
		var ok bool
		if res, ok = signals.ResultFromError(err); !ok {
			return out, fail(ErrorTypeNoSnapshot, err, fmt.Sprintf("plan %s ended %s without a Result: nothing names its snapshot",
				in.PlanID, out.Status))
		}
	}
	if res.SnapshotID == "" {
		return out, fail(ErrorTypeNoSnapshot, nil, fmt.Sprintf("plan %s has no workspace snapshot: it had no workspace, "+
			"ended before execution, or ran before results named the snapshot", in.PlanID))
	}
	out.SnapshotID, out.Workspace = res.SnapshotID, res.Workspace
	return out, nil
}

// ChangedSinceInput asks what changed in a workspace after a time.
type ChangedSinceInput struct {
	Workspace string    `json:"workspace"`
	Since     time.Time `json:"since"`
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
	paths, more, err := a.Workspace.ChangedSince(ctx, in.Workspace, in.Since, MaxChangedPaths)
	if err != nil {
		return ChangedSinceOutput{}, refusal(err)
	}
	return ChangedSinceOutput{Paths: paths, More: more}, nil
}
