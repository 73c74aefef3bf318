package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace/folders"
	"github.com/planmode/planmode/workspace/lease"
)

// Workspaces carries what the workspace activities need.
type Workspaces struct {
	// Folders are the plans' workspaces on this worker, shared with
	// Tools; nil works in the folders as found, under no root.
	Folders *folders.Folders
	// Client reaches the workspace lease workflows and the plans a fork or a
	// rollback reads; nil means the client of the worker that runs the
	// activity.
	Client client.Client

	// leases stands in for the lease workflows in tests.
	leases lease.Registry
}

// folders returns the workspaces the activities work on.
func (w *Workspaces) folders() *folders.Folders { return orNoFolders(w.Folders) }

// client returns the client that reaches other plans and the leases:
// Client, else the worker's own.
func (w *Workspaces) client(ctx context.Context) client.Client {
	if w.Client != nil {
		return w.Client
	}
	return activity.GetClient(ctx)
}

// AcquireWorkspaceInput asks for a plan's lease on its workspace.
type AcquireWorkspaceInput struct {
	// PlanID is the plan's workflow id; RunID the first run of its chain,
	// which every continuation shares.
	PlanID string `json:"planId"`
	RunID  string `json:"runId"`
	// Workspace is the workspace as the plan names it (see
	// workspace.Root.Resolve).
	Workspace string `json:"workspace"`
	// Own marks the plan's default folder (plan.DefaultWorkspace), which
	// is created when missing; a workspace the plan names must exist.
	Own bool `json:"own,omitempty"`
	// TaskQueue is the queue whose lease workflows hold the plan's
	// workspace, and the one they run on when the acquire starts them.
	TaskQueue string `json:"taskQueue"`
	// Snapshot, when set, asks for the workspace's snapshot once it is
	// leased, as SnapshotWorkspace takes it: the snapshot before
	// execution of a plan that runs at once, one round trip sooner.
	Snapshot *SnapshotInput `json:"snapshot,omitempty"`
}

// AcquireWorkspaceOutput is the lease the plan now holds, and the
// snapshot it asked for.
type AcquireWorkspaceOutput struct {
	Lease    signals.WorkspaceLease `json:"lease"`
	Snapshot *SnapshotOutput        `json:"snapshot,omitempty"`
}

// AcquireWorkspace resolves the plan's workspace (creating its own folder)
// and leases it from the lease workflows of its task queue (lease.Take),
// so that no other open plan works in it, around it or inside it; the
// stale mark of a plan that closed without releasing it is released. It returns the
// lease; a workspace another open plan holds is a non-retryable error of
// type signals.ErrorTypeWorkspaceBusy whose message and first detail name
// that plan; the workspace root itself, a workspace outside it or a
// missing one is a non-retryable ErrorTypeWorkspace. Acquiring again for
// the same plan is idempotent.
func (w *Workspaces) AcquireWorkspace(ctx context.Context, in AcquireWorkspaceInput) (AcquireWorkspaceOutput, error) {
	key, err := w.folders().Key(in.Workspace, in.Own)
	if err != nil {
		return AcquireWorkspaceOutput{}, refusal(err)
	}
	reg := w.leases
	if reg == nil {
		reg = lease.Of(w.client(ctx), in.TaskQueue)
	}
	held, err := lease.Take(ctx, reg, signals.WorkspaceLeaseRequest{Key: key, PlanID: in.PlanID, RunID: in.RunID},
		func(holder signals.WorkspaceLease) {
			if activity.IsActivity(ctx) {
				activity.GetLogger(ctx).Info("releasing the stale lease of a closed plan", "workspace", holder.Key, "plan", holder.PlanID)
			}
		})
	var busy *lease.Busy
	var refused *lease.Refused
	switch {
	case errors.As(err, &busy):
		return AcquireWorkspaceOutput{}, temporal.NewNonRetryableApplicationError(busy.Error(), signals.ErrorTypeWorkspaceBusy, nil,
			busy.Holder)
	case errors.As(err, &refused):
		return AcquireWorkspaceOutput{}, fail(ErrorTypeWorkspace, refused.Err, refused.Msg)
	case err != nil:
		return AcquireWorkspaceOutput{}, err
	}
	out := AcquireWorkspaceOutput{Lease: held}
	if in.Snapshot != nil {
		// The lease is held: nothing else works in the folder now. A
		// retry acquires again (idempotent) and snapshots again.
		snap, err := w.SnapshotWorkspace(ctx, *in.Snapshot)
		if err != nil {
			return AcquireWorkspaceOutput{}, err
		}
		out.Snapshot = &snap
	}
	return out, nil
}
