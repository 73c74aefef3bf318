// Package planread reads other plans for the worker, through its Temporal
// client: the parent a fork starts from, open (its plan query) or ended
// (its Result), and how an ended plan left its workspace, for a rollback
// after the end. It never changes the plans it reads.
//
// A read no retry can help — no such plan, a plan still open, a plan or
// step with no recorded files — is a [Refusal]; other errors are faults
// of the client or the server.
package planread

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Kinds of Refusal.
var (
	// ErrNotFound is a plan id Temporal does not know.
	ErrNotFound = errors.New("no such plan")
	// ErrOpen is a plan that has not ended.
	ErrOpen = errors.New("plan open")
	// ErrNoFiles is a plan, or a step of it, that names no recorded
	// files: it had no workspace, ended before execution or without a
	// Result, or the step did not complete.
	ErrNoFiles = errors.New("no recorded files")
)

// Refusal is a read refused for good: Kind is one of the kinds above, Msg
// says what and why, Err is the cause, if any.
type Refusal struct {
	Kind error
	Msg  string
	Err  error
}

// Error returns Msg.
func (r *Refusal) Error() string { return r.Msg }

// Unwrap returns the kind and the cause, if any.
func (r *Refusal) Unwrap() []error {
	if r.Err == nil {
		return []error{r.Kind}
	}
	return []error{r.Kind, r.Err}
}

// refuse returns a Refusal.
func refuse(kind, cause error, format string, args ...any) error {
	return &Refusal{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// Fork is what a fork takes from its parent: the goal, the title, the
// steps not done after the step it starts from (plan.ForkSteps) and the
// manifest of the files that step left. Activities return it: its JSON
// shape does not change.
type Fork struct {
	Goal     string      `json:"goal"`
	Title    string      `json:"title,omitempty"`
	Steps    []plan.Step `json:"steps,omitempty"`
	Manifest string      `json:"manifest"`
}

// ForkSource reads step stepID of plan planID for a fork: from the plan
// query while the plan runs, else from its Result.
func ForkSource(ctx context.Context, c client.Client, planID, stepID string) (Fork, error) {
	info, err := describe(ctx, c, planID)
	if err != nil {
		return Fork{}, err
	}
	var p *plan.Plan
	var goal string
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		v, err := signals.PlanQuery.Get(ctx, c, planID)
		if err != nil {
			return Fork{}, fmt.Errorf("read the plan of %s: %w", planID, err)
		}
		p, goal = v.Plan, v.Goal
	} else {
		res, err := endedResult(ctx, c, planID, "")
		if err != nil {
			return Fork{}, refuse(ErrNoFiles, err, "plan %s ended without a Result", planID)
		}
		p, goal = res.Plan, res.Goal
	}
	steps, manifest, err := plan.ForkSteps(p, stepID)
	if err != nil {
		return Fork{}, refuse(ErrNoFiles, err, "plan %s: %v", planID, err)
	}
	return Fork{Goal: goal, Title: p.Title, Steps: steps, Manifest: manifest}, nil
}

// End is how a plan ended, as a rollback after the end needs it.
// Activities return it: its JSON shape does not change.
type End struct {
	// Status is Temporal's status of the plan's last run (Completed,
	// Failed, Canceled), ClosedAt when it closed.
	Status   string    `json:"status"`
	ClosedAt time.Time `json:"closedAt"`
	// SnapshotID names the files to restore: the snapshot before
	// execution, or the manifest of the step asked for.
	SnapshotID string `json:"snapshotId"`
	Workspace  string `json:"workspace"`
	// Manifest names the files as the plan left them; empty for a plan
	// whose files were not recorded.
	Manifest string `json:"manifest,omitempty"`
}

// PlanEnd reads how plan planID ended: the status and close time of the
// last run of its continue-as-new chain and, from its Result, the
// snapshot and workspace; with stepID, the files as that step left them
// rather than before execution. A plan still open is an ErrOpen refusal,
// one without a snapshot or step files an ErrNoFiles refusal; what it
// read so far comes with them.
func PlanEnd(ctx context.Context, c client.Client, planID, stepID string) (End, error) {
	info, err := describe(ctx, c, planID)
	if err != nil {
		return End{}, err
	}
	if info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return End{}, refuse(ErrOpen, nil, "plan %s is still open: roll it back with its rollback update", planID)
	}
	out := End{Status: info.GetStatus().String(), ClosedAt: info.GetCloseTime().AsTime()}
	res, err := endedResult(ctx, c, planID, info.GetExecution().GetRunId())
	if err != nil {
		return out, refuse(ErrNoFiles, err, "plan %s ended %s without a Result: nothing names its snapshot", planID, out.Status)
	}
	if res.SnapshotID == "" {
		return out, refuse(ErrNoFiles, nil, "plan %s has no workspace snapshot: it had no workspace, "+
			"ended before execution, or ran before results named the snapshot", planID)
	}
	out.SnapshotID, out.Workspace, out.Manifest = res.SnapshotID, res.Workspace, res.Manifest
	if stepID != "" {
		id, err := stepManifest(res.Plan, stepID)
		if err != nil {
			return out, refuse(ErrNoFiles, err, "plan %s: %v", planID, err)
		}
		out.SnapshotID = id
	}
	return out, nil
}

// describe describes the latest run of plan id; an unknown plan is an
// ErrNotFound refusal.
func describe(ctx context.Context, c client.Client, id string) (*workflowpb.WorkflowExecutionInfo, error) {
	desc, err := c.DescribeWorkflow(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, refuse(ErrNotFound, err, "no plan %s", id)
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
