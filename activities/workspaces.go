package activities

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

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
	// Registry is the registry workflow's id, TaskQueue the queue it runs
	// on when the acquire starts it.
	Registry  string `json:"registry"`
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

// leaseRegistry is the registry workflow as the activity sees it, so
// that tests can stand in for the server.
type leaseRegistry interface {
	// acquire asks the registry for req's lease (starting the registry
	// when it does not run); a busy workspace is a WorkspaceBusy error.
	acquire(ctx context.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error)
	// release gives up the lease req names.
	release(ctx context.Context, req signals.WorkspaceLeaseRequest) error
	// open reports whether the plan run that holds l is still open.
	open(ctx context.Context, l signals.WorkspaceLease) (bool, error)
}

// AcquireWorkspace resolves the plan's workspace (creating its own folder)
// and leases it from the registry of its task queue, so that no other open
// plan works in it, around it or inside it. When a plan that has closed
// without releasing holds it, the stale lease is released and the acquire
// tried once more. It returns the lease; a workspace another open plan
// holds is a non-retryable error of type signals.ErrorTypeWorkspaceBusy
// whose message and first detail name that plan; the workspace root
// itself, a workspace outside it or a missing one is a non-retryable
// ErrorTypeWorkspace. Acquiring again for the same plan is idempotent.
func (a *Activities) AcquireWorkspace(ctx context.Context, in AcquireWorkspaceInput) (AcquireWorkspaceOutput, error) {
	key, err := a.workspaceKey(in.Workspace, in.Own)
	if err != nil {
		return AcquireWorkspaceOutput{}, err
	}
	reg := a.leaseRegistry(ctx, in)
	req := signals.WorkspaceLeaseRequest{Key: key, PlanID: in.PlanID, RunID: in.RunID}
	lease, err := reg.acquire(ctx, req)
	if holder, busy := signals.BusyHolder(err); busy {
		open, oerr := reg.open(ctx, holder)
		if oerr != nil {
			return AcquireWorkspaceOutput{}, fmt.Errorf("workspace %q: look up plan %s that holds it: %w", key, holder.PlanID, oerr)
		}
		if open {
			return AcquireWorkspaceOutput{}, temporal.NewNonRetryableApplicationError(signals.BusyMessage(key, holder),
				signals.ErrorTypeWorkspaceBusy, nil, holder)
		}
		if activity.IsActivity(ctx) {
			activity.GetLogger(ctx).Info("releasing the stale lease of a closed plan", "workspace", holder.Key, "plan", holder.PlanID)
		}
		if err := reg.release(ctx, holder.Request()); err != nil {
			return AcquireWorkspaceOutput{}, fmt.Errorf("release the stale lease of plan %s: %w", holder.PlanID, err)
		}
		lease, err = reg.acquire(ctx, req)
	}
	if err != nil {
		return AcquireWorkspaceOutput{}, leaseError(key, err)
	}
	out := AcquireWorkspaceOutput{Lease: lease}
	if in.Snapshot != nil {
		// The lease is held: nothing else works in the folder now. A
		// retry acquires again (idempotent) and snapshots again.
		snap, err := a.SnapshotWorkspace(ctx, *in.Snapshot)
		if err != nil {
			return AcquireWorkspaceOutput{}, err
		}
		out.Snapshot = &snap
	}
	return out, nil
}

// leaseError keeps a refusal from the registry non-retryable (a busy
// workspace after all, an invalid request); anything else is a fault a
// retry may fix.
func leaseError(key string, err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NonRetryable() {
		if holder, busy := signals.BusyHolder(err); busy {
			return temporal.NewNonRetryableApplicationError(signals.BusyMessage(key, holder), signals.ErrorTypeWorkspaceBusy, nil, holder)
		}
		return fail(ErrorTypeWorkspace, err, fmt.Sprintf("workspace %q: %s", key, app.Message()))
	}
	return fmt.Errorf("acquire workspace %q: %w", key, err)
}

// workspaceKey resolves ws and returns its lease key: its path relative to
// the workspace root, or its absolute path without a root. The root itself
// is refused, since it holds every plan's folder.
func (a *Activities) workspaceKey(ws string, own bool) (string, error) {
	root := a.Workspace.Dir
	if own && root == "" {
		return "", fail(ErrorTypeWorkspace, nil, "no workspace: the plan names none and the worker has no workspace root")
	}
	real, err := a.Workspace.Resolve(ws, !own)
	if err != nil {
		return "", refusal(err)
	}
	return a.keyOf(ws, real)
}

// keyOf returns the key of the workspace ws names, resolved to real (see
// workspaceKey).
func (a *Activities) keyOf(ws, real string) (string, error) {
	root := a.Workspace.Dir
	key := real
	if root != "" {
		realRoot, err := filepath.Abs(root)
		if err == nil {
			realRoot, err = filepath.EvalSymlinks(realRoot)
		}
		if err != nil {
			return "", fmt.Errorf("workspace root %s: %w", root, err)
		}
		if key, err = filepath.Rel(realRoot, real); err != nil {
			return "", fail(ErrorTypeWorkspace, err, fmt.Sprintf("workspace %s is outside the workspace root", real))
		}
	}
	key = filepath.ToSlash(key)
	if err := plan.ValidWorkspaceKey(key); err != nil {
		return "", fail(ErrorTypeWorkspace, err, fmt.Sprintf("workspace %q: %v: name a folder inside it, or none for "+
			"the plan's own", ws, err))
	}
	return key, nil
}

// leaseRegistry returns the registry of in's task queue, reached with Client
// or, without one, the worker's own client.
func (a *Activities) leaseRegistry(ctx context.Context, in AcquireWorkspaceInput) leaseRegistry {
	if a.leases != nil {
		return a.leases
	}
	c := a.Client
	if c == nil {
		c = activity.GetClient(ctx)
	}
	return temporalRegistry{c: c, id: in.Registry, queue: in.TaskQueue}
}

// temporalRegistry is the registry workflow reached through a client.
type temporalRegistry struct {
	c     client.Client
	id    string
	queue string
}

// acquire sends acquire-workspace with Update-with-Start: the registry
// starts with the first plan that needs it, and an open one is used.
func (r temporalRegistry) acquire(ctx context.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
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

// release sends release-workspace as an update, so the next acquire
// finds the lease gone.
func (r temporalRegistry) release(ctx context.Context, req signals.WorkspaceLeaseRequest) error {
	_, err := signals.ReleaseWorkspace.Update(ctx, r.c, r.id, req)
	return err
}

// open reports whether l's plan still runs the chain that acquired it: a
// plan that is gone, closed, or runs again under the same id from a new
// first run no longer holds it.
func (r temporalRegistry) open(ctx context.Context, l signals.WorkspaceLease) (bool, error) {
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
