// Package lease takes a plan's lease on its workspace from the
// PlanWorkspaces registry of its task queue, a workflow reached through
// the worker's Temporal client, so that no two open plans work in the same
// folder, around it or inside it. A lease a plan left behind when it
// closed without releasing it is released, and the workspace taken.
package lease

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
)

// Registry is the registry workflow as the worker sees it.
type Registry interface {
	// Acquire asks for req's lease (starting the registry when it does
	// not run); a busy workspace is a signals.ErrorTypeWorkspaceBusy
	// error.
	Acquire(ctx context.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error)
	// Release gives up the lease req names.
	Release(ctx context.Context, req signals.WorkspaceLeaseRequest) error
	// Open reports whether the plan run that holds l is still open.
	Open(ctx context.Context, l signals.WorkspaceLease) (bool, error)
}

// Busy is a workspace an open plan holds: Holder's lease has Key, or a
// workspace around or inside it.
type Busy struct {
	Key    string
	Holder signals.WorkspaceLease
}

// Error names the workspace and the plan that holds it
// (signals.BusyMessage).
func (b *Busy) Error() string { return signals.BusyMessage(b.Key, b.Holder) }

// Refused is a request the registry refused for good other than for a
// busy workspace (an invalid request); Msg says why.
type Refused struct {
	Msg string
	Err error
}

// Error returns Msg.
func (r *Refused) Error() string { return r.Msg }

// Unwrap returns the registry's error.
func (r *Refused) Unwrap() error { return r.Err }

// Take asks reg for req's lease. When a plan that has closed holds it,
// stale (when set) is told, the stale lease released and the acquire
// tried once more. A workspace an open plan holds is a *Busy error, a
// request the registry refuses otherwise a *Refused error; other errors
// are faults a retry may fix. Taking again for the same plan run is
// idempotent.
func Take(ctx context.Context, reg Registry, req signals.WorkspaceLeaseRequest,
	stale func(holder signals.WorkspaceLease)) (signals.WorkspaceLease, error) {
	key := req.Key
	lease, err := reg.Acquire(ctx, req)
	if holder, busy := signals.BusyHolder(err); busy {
		open, oerr := reg.Open(ctx, holder)
		if oerr != nil {
			return lease, fmt.Errorf("workspace %q: look up plan %s that holds it: %w", key, holder.PlanID, oerr)
		}
		if open {
			return lease, &Busy{Key: key, Holder: holder}
		}
		if stale != nil {
			stale(holder)
		}
		if err := reg.Release(ctx, holder.Request()); err != nil {
			return lease, fmt.Errorf("release the stale lease of plan %s: %w", holder.PlanID, err)
		}
		lease, err = reg.Acquire(ctx, req)
	}
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return lease, nil
	case !errors.As(err, &app) || !app.NonRetryable():
		return lease, fmt.Errorf("acquire workspace %q: %w", key, err)
	}
	if holder, busy := signals.BusyHolder(err); busy {
		return lease, &Busy{Key: key, Holder: holder}
	}
	return lease, &Refused{Msg: fmt.Sprintf("workspace %q: %s", key, app.Message()), Err: err}
}

// Of returns registry id, which runs on task queue queue, reached through
// c.
func Of(c client.Client, id, queue string) Registry {
	return temporalRegistry{c: c, id: id, queue: queue}
}

// temporalRegistry is the registry workflow reached through a client.
type temporalRegistry struct {
	c     client.Client
	id    string
	queue string
}

// Acquire sends acquire-workspace with Update-with-Start: the registry
// starts with the first plan that needs it, and an open one is used.
func (r temporalRegistry) Acquire(ctx context.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
	var lease signals.WorkspaceLease
	start := r.c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       r.id,
		TaskQueue:                r.queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		StaticSummary:            "Workspace leases of the open plans of task queue " + r.queue,
	}, signals.WorkspacesWorkflowType, signals.WorkspaceRegistry{})
	h, err := r.c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   signals.AcquireWorkspace.Name,
			Args:         []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return lease, err
	}
	return lease, h.Get(ctx, &lease)
}

// Release sends release-workspace as an update, so the next acquire
// finds the lease gone.
func (r temporalRegistry) Release(ctx context.Context, req signals.WorkspaceLeaseRequest) error {
	_, err := signals.ReleaseWorkspace.Update(ctx, r.c, r.id, req)
	return err
}

// Open reports whether l's plan still runs the chain that acquired it: a
// plan that is gone, closed, or runs again under the same id from a new
// first run no longer holds it.
func (r temporalRegistry) Open(ctx context.Context, l signals.WorkspaceLease) (bool, error) {
	resp, err := r.c.DescribeWorkflow(ctx, l.PlanID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	info := resp.RawResponse.GetWorkflowExecutionInfo()
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, nil
	}
	first := info.GetFirstRunId()
	return first == "" || first == l.RunID, nil
}
