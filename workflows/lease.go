package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Waiting for a busy workspace (onBusy wait).
const (
	leaseStartToClose = time.Minute
	// leaseFirstWait and leaseMaxWait bound the backoff between tries.
	leaseFirstWait = time.Second
	leaseMaxWait   = time.Minute
)

// errWorkspaceRefused marks the refusal of the run's workspace: it is an
// invalid request, which fails the run at once with no Result.
type errWorkspaceRefused struct{ msg string }

func (e *errWorkspaceRefused) Error() string { return e.msg }

// workspaceLease is the run's hold on its workspace: it asks the lease
// workflows of its task queue for it (a mark on each key of
// signals.LeaseChain) before anything touches it,
// waits while another plan holds it, and gives it back however the run
// ends. It owns the lease the checkpoint carries (signals.LeaseState) and
// the wait the run shows; while it waits it moves the run to
// awaiting-workspace (run) and continues as new when the chain says so.
type workspaceLease struct {
	st    signals.LeaseState
	run   phaser
	chain continuer
	// planID is the plan's (the workflow id) and workspace its
	// workspace; wait says whether a busy workspace is waited for.
	planID, workspace string
	waitBusy          bool
	// wait is the busy workspace the run waits for, if any.
	wait *signals.WorkspaceWait
	// snapshot is the snapshot before execution the lease brought, for
	// prepare to take (see run.snapshotFirst).
	snapshot *activities.SnapshotOutput
}

// phaser moves the run to a phase.
type phaser interface {
	setPhase(ctx workflow.Context, phase plan.Phase)
}

// acquire leases the run's workspace before anything touches it
// (once per chain: a continuation carries the lease in its state),
// taking snapshot with it when it is not nil (see run.snapshotFirst). A
// workspace another open plan holds is refused with an
// errWorkspaceRefused naming that plan, or waited for when the request
// says onBusy wait: a durable timer with backoff up to leaseMaxWait, the
// run showing PlanAwaiting=workspace; the wait is a safe point to
// continue as new. The workspace root itself, one outside it and a
// missing one are refused too. Other failures (no lease workflow answered) are
// returned as they are.
func (l *workspaceLease) acquire(ctx workflow.Context, snapshot *activities.SnapshotInput) error {
	if l.st.Lease != nil {
		return nil
	}
	info := workflow.GetInfo(ctx)
	first := info.FirstRunID
	if first == "" {
		first = info.WorkflowExecution.RunID
	}
	in := activities.AcquireWorkspaceInput{
		PlanID: l.planID, RunID: first, Workspace: l.workspace,
		Own:       l.workspace == plan.DefaultWorkspace(l.planID),
		TaskQueue: info.TaskQueueName,
		Snapshot:  snapshot,
	}
	wait := leaseFirstWait
	for {
		out, err := acquireLease(ctx, in)
		if err == nil {
			l.st.Lease = &out.Lease
			l.wait, l.snapshot = nil, out.Snapshot
			return nil
		}
		holder, busy := signals.BusyHolder(err)
		if !busy || !l.waitBusy {
			return refusedWorkspace(err)
		}
		l.await(ctx, holder)
		if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return l.chain.due(ctx) }); err != nil {
			return err
		}
		if l.chain.due(ctx) {
			if err := l.chain.continueAsNew(ctx, func() bool { return false }); err != nil {
				return err
			}
		}
		wait = min(2*wait, leaseMaxWait)
	}
}

// await shows that the run waits for holder's plan to end.
func (l *workspaceLease) await(ctx workflow.Context, holder signals.WorkspaceLease) {
	since := workflow.Now(ctx)
	if l.wait != nil {
		since = l.wait.Since
	}
	l.wait = &signals.WorkspaceWait{Workspace: l.workspace, Since: since,
		HeldBy: fmt.Sprintf("plan %s (workspace %q)", holder.PlanID, holder.Key)}
	l.run.setPhase(ctx, plan.PhaseAwaitingWorkspace)
}

// refusedWorkspace turns the activity's refusal of the workspace (busy,
// the root, outside the root, missing) into errWorkspaceRefused with its
// message; other errors stay as they are.
func refusedWorkspace(err error) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && (app.Type() == signals.ErrorTypeWorkspaceBusy || app.Type() == activities.ErrorTypeWorkspace) {
		return &errWorkspaceRefused{msg: app.Message()}
	}
	return err
}

// release gives the run's lease back: a release-workspace signal to the
// lease workflow of each key of its chain (signals.LeaseChain; one for a plan's
// default workspace), in a disconnected context so that a cancelled run
// releases too, without waiting for the answers: the run summarizes
// meanwhile. The run must call the returned wait before it closes, since
// the server drops a signal whose sender has closed. A release that
// cannot be sent is logged: the mark is stale then, and the next plan
// that meets it finds this one closed and clears it.
func (l *workspaceLease) release(ctx workflow.Context) (wait func(workflow.Context)) {
	if l.st.Lease == nil {
		return func(workflow.Context) {}
	}
	held := *l.st.Lease
	l.st.Lease = nil
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	queue := workflow.GetInfo(ctx).TaskQueueName
	chain := signals.LeaseChain(held.Key)
	sent := make([]workflow.Future, len(chain))
	for i, at := range chain {
		sent[i] = workflow.SignalExternalWorkflow(ctx, signals.LeaseWorkflowID(queue, at), "", signals.ReleaseWorkspace.Name, held.Request())
	}
	return func(ctx workflow.Context) {
		ctx, _ = workflow.NewDisconnectedContext(ctx)
		for i, f := range sent {
			if err := f.Get(ctx, nil); err != nil {
				workflow.GetLogger(ctx).Warn("workspace mark not released", "workspace", held.Key, "key", chain[i], "error", err)
			}
		}
	}
}

// acquireLease runs the AcquireWorkspace activity; one that snapshots too
// has a snapshot's bounds and heartbeats.
func acquireLease(ctx workflow.Context, in activities.AcquireWorkspaceInput) (activities.AcquireWorkspaceOutput, error) {
	summary := "lease workspace " + in.Workspace
	if in.Snapshot != nil {
		return call(ownPriority(heartbeatCtx(ctx, toolStartToClose, summary+" and snapshot it")), a.AcquireWorkspace, in)
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: leaseStartToClose,
		RetryPolicy:         retryPolicy,
		Summary:             summary,
	})
	return call(ownPriority(ctx), a.AcquireWorkspace, in)
}
