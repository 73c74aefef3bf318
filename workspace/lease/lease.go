// Package lease takes a plan's lease on its workspace from the lease
// workflows of its task queue, one per workspace key (PlanWorkspaceLease,
// reached through the worker's Temporal client), so that no two open
// plans work in the same folder, around it or inside it. A plan takes an
// intent on each leasable ancestor of its key, top down, then the
// exclusive lease on the key (Chain, Conflict). A mark a plan left behind
// when it closed without releasing it is released, and the key taken.
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

// Registry is the lease workflows of a task queue as the worker sees
// them, each reached by its key.
type Registry interface {
	// Acquire asks the workflow of key at for req's mark there (starting
	// it when it does not run); a conflicting mark is a
	// signals.ErrorTypeWorkspaceBusy error.
	Acquire(ctx context.Context, at string, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error)
	// Release gives up the mark req names on key at.
	Release(ctx context.Context, at string, req signals.WorkspaceLeaseRequest) error
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

// Refused is a request a lease workflow refused for good other than for a
// busy workspace (an invalid request); Msg says why.
type Refused struct {
	Msg string
	Err error
}

// Error returns Msg.
func (r *Refused) Error() string { return r.Msg }

// Unwrap returns the lease workflow's error.
func (r *Refused) Unwrap() error { return r.Err }

// Take asks reg for req's lease: a mark on each key of signals.LeaseChain(req.Key),
// top down, the last the exclusive lease, which it returns. When a plan
// that has closed holds a conflicting mark, stale (when set) is told, the
// stale mark released and that key tried once more. A workspace an open
// plan holds is a *Busy error, a request refused otherwise a *Refused
// error; either way the marks taken are given back first. Other errors
// are faults a retry may fix. Taking again for the same plan run is
// idempotent.
func Take(ctx context.Context, reg Registry, req signals.WorkspaceLeaseRequest,
	stale func(holder signals.WorkspaceLease)) (signals.WorkspaceLease, error) {
	var lease signals.WorkspaceLease
	chain := signals.LeaseChain(req.Key)
	for i, at := range chain {
		l, err := takeAt(ctx, reg, at, req, stale)
		if err != nil {
			return signals.WorkspaceLease{}, backOut(ctx, reg, req, chain[:i], at, err)
		}
		lease = l
	}
	return lease, nil
}

// takeAt takes req's mark on key at, releasing a closed plan's
// conflicting mark first.
func takeAt(ctx context.Context, reg Registry, at string, req signals.WorkspaceLeaseRequest,
	stale func(holder signals.WorkspaceLease)) (signals.WorkspaceLease, error) {
	key := req.Key
	lease, err := reg.Acquire(ctx, at, req)
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
		if err := reg.Release(ctx, at, holder.Request()); err != nil {
			return lease, fmt.Errorf("release the stale mark of plan %s on %q: %w", holder.PlanID, at, err)
		}
		lease, err = reg.Acquire(ctx, at, req)
	}
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		return lease, nil
	case !errors.As(err, &app) || !app.NonRetryable():
		return lease, fmt.Errorf("acquire workspace %q at %q: %w", key, at, err)
	}
	if holder, busy := signals.BusyHolder(err); busy {
		return lease, &Busy{Key: key, Holder: holder}
	}
	return lease, &Refused{Msg: fmt.Sprintf("workspace %q: %s", key, app.Message()), Err: err}
}

// backOut gives back the marks req took on the keys taken after key at
// answered err, so that a plan refused (or waiting) holds nothing that
// keeps others out. When err is a fault, the mark on at may have been
// taken all the same, so it is given back too. A mark that cannot be
// given back makes err a fault: the activity retries, taking and giving
// back again, rather than leave a mark behind while the plan waits.
func backOut(ctx context.Context, reg Registry, req signals.WorkspaceLeaseRequest, taken []string, at string, err error) error {
	var busy *Busy
	var refused *Refused
	if !errors.As(err, &busy) && !errors.As(err, &refused) {
		taken = append(taken, at)
	}
	for i := len(taken) - 1; i >= 0; i-- {
		if rerr := reg.Release(ctx, taken[i], req); rerr != nil {
			return fmt.Errorf("%v; give back the mark on %q: %w", err, taken[i], rerr)
		}
	}
	return err
}

// Of returns the lease workflows of task queue queue, reached through c.
func Of(c client.Client, queue string) Registry {
	return temporalRegistry{c: c, queue: queue}
}

// temporalRegistry is the lease workflows reached through a client.
type temporalRegistry struct {
	c     client.Client
	queue string
}

// Acquire sends acquire-workspace to the workflow of key at with
// Update-with-Start: a key's workflow starts with the first plan that
// needs it, and an open one is used. One that closed as the update
// reached it answers an error the caller retries: the next try starts a
// new run (see workflows.PlanWorkspaceLease).
//
// The workflow runs at the critical priority key: a plan does nothing
// before its lease, and a lease workflow's tasks are tiny, so they go
// before the plans' own tasks on the queue instead of waiting behind a
// burst of plans long enough for the acquire to time out.
func (r temporalRegistry) Acquire(ctx context.Context, at string, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
	var lease signals.WorkspaceLease
	start := r.c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       signals.LeaseWorkflowID(r.queue, at),
		TaskQueue:                r.queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		StaticSummary:            "Workspace lease of " + at,
		Priority:                 temporal.Priority{PriorityKey: signals.PriorityKeyCritical},
	}, signals.LeaseWorkflowType, signals.WorkspaceLeases{Key: at})
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

// Release sends release-workspace to the workflow of key at as an
// update, so the next acquire finds the mark gone. A workflow that is not
// running holds no marks: there is nothing to release.
func (r temporalRegistry) Release(ctx context.Context, at string, req signals.WorkspaceLeaseRequest) error {
	_, err := signals.ReleaseWorkspace.Update(ctx, r.c, signals.LeaseWorkflowID(r.queue, at), req)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
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
