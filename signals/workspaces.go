package signals

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// Workspace leases keep open plans apart: no two share a file. One
// long-lived PlanWorkspaces workflow per task queue holds a lease per open
// plan, keyed by its workspace's path relative to the workers'
// workspace.root. A plan acquires its lease (the AcquireWorkspace
// activity, an Update-with-Start of [AcquireWorkspace]) before anything
// touches its workspace, carries it across continue-as-new, and releases
// it ([ReleaseWorkspace]) however it ends. A plan that ends without
// releasing (terminated, timed out) leaves a stale lease, which the next
// plan that needs the workspace finds closed and releases.

// WorkspacesWorkflowType is the registered name of the registry workflow.
const WorkspacesWorkflowType = "PlanWorkspaces"

// WorkspacesWorkflowID returns the id of the registry of the plans of
// taskQueue: one registry per task queue, since the workers of one queue
// share one workspace.root.
func WorkspacesWorkflowID(taskQueue string) string {
	return "planmode-workspaces/" + taskQueue
}

// AcquireWorkspace takes a lease on a workspace for a plan. It is an
// update only: the plan needs the answer before it touches the
// workspace, and the validator refuses a busy workspace before anything
// is recorded, so a plan waiting for one costs the registry no history.
// The refusal is an application error of type [ErrorTypeWorkspaceBusy]
// whose first detail is the holder's [WorkspaceLease]. The same plan
// acquiring again (a retry, or another workspace) gets its new lease and
// gives up any other.
var AcquireWorkspace = UpdateOnly[WorkspaceLeaseRequest, WorkspaceLease]{
	Name:        "acquire-workspace",
	Description: "Lease a workspace to a plan, refused when it is, holds or lies inside another plan's. Answers the lease.",
}

// ReleaseWorkspace gives a lease up. The plan sends it as a signal when
// it ends (from workflow code, where an update cannot be sent); the
// AcquireWorkspace activity sends it as an update to clear a closed
// plan's stale lease before it tries again. Releasing a lease that is not
// held, or is held by another run, changes nothing.
var ReleaseWorkspace = Handler[WorkspaceLeaseRequest, ReleaseWorkspaceResponse]{
	Name:        "release-workspace",
	Description: "Give up the lease of a plan run on a workspace. Answers whether one was released.",
}

// WorkspacesQuery lists the leases, by key.
var WorkspacesQuery = Query[[]WorkspaceLease]{
	Name:        "workspaces",
	Description: "The workspace leases of the open plans, by workspace.",
}

// ErrorTypeWorkspaceBusy is the application error type of an
// acquire-workspace refusal: the workspace is, holds or lies inside one
// another plan holds. Its first detail is that plan's WorkspaceLease.
const ErrorTypeWorkspaceBusy = "WorkspaceBusy"

// MaxWorkflowIDBytes bounds a plan id or run id in a lease request: the
// server's own default bound on workflow ids.
const MaxWorkflowIDBytes = 1000

// WorkspaceLeaseRequest asks for, or gives up, the lease of the run RunID
// of plan PlanID on the workspace Key (see plan.ValidWorkspaceKey).
type WorkspaceLeaseRequest struct {
	Key    string `json:"key"`
	PlanID string `json:"planId"`
	RunID  string `json:"runId"`
}

// Validate refuses an invalid key and a missing or oversized id.
func (r WorkspaceLeaseRequest) Validate() error {
	var errs []error
	if err := plan.ValidWorkspaceKey(r.Key); err != nil {
		errs = append(errs, err)
	}
	for _, f := range []struct{ name, v string }{{"planId", r.PlanID}, {"runId", r.RunID}} {
		switch {
		case f.v == "":
			errs = append(errs, fmt.Errorf("%s is required", f.name))
		case len(f.v) > MaxWorkflowIDBytes:
			errs = append(errs, fmt.Errorf("%s is %d bytes: at most %d", f.name, len(f.v), MaxWorkflowIDBytes))
		}
	}
	return errors.Join(errs...)
}

// WorkspaceLease is a plan's hold on a workspace: the run that acquired it
// (a plan's first run; its continuations carry the lease on) and since
// when.
type WorkspaceLease struct {
	Key    string    `json:"key"`
	PlanID string    `json:"planId"`
	RunID  string    `json:"runId"`
	Since  time.Time `json:"since"`
}

// Holds reports whether l is the lease req names: the same key, plan and
// run.
func (l WorkspaceLease) Holds(req WorkspaceLeaseRequest) bool {
	return l.Key == req.Key && l.PlanID == req.PlanID && l.RunID == req.RunID
}

// Request returns the request that names l, to release it.
func (l WorkspaceLease) Request() WorkspaceLeaseRequest {
	return WorkspaceLeaseRequest{Key: l.Key, PlanID: l.PlanID, RunID: l.RunID}
}

// ReleaseWorkspaceResponse says whether a lease was released.
type ReleaseWorkspaceResponse struct {
	Released bool `json:"released"`
}

// WorkspaceRegistry is the registry workflow's whole state, its input and
// what it hands its continuation.
type WorkspaceRegistry struct {
	// Leases are the leases held, by key.
	Leases map[string]WorkspaceLease `json:"leases,omitempty"`
	// Runs counts the runs before this one.
	Runs int `json:"runs"`
}

// WorkspaceBusy returns the registry's refusal of req: a non-retryable
// application error of type ErrorTypeWorkspaceBusy naming holder, which
// is its first detail.
func WorkspaceBusy(req WorkspaceLeaseRequest, holder WorkspaceLease) error {
	return temporal.NewNonRetryableApplicationError(BusyMessage(req.Key, holder), ErrorTypeWorkspaceBusy, nil, holder)
}

// BusyMessage says that workspace key is taken by holder's plan.
func BusyMessage(key string, holder WorkspaceLease) string {
	how := "is held by"
	switch {
	case holder.Key == key:
	case plan.WorkspacesOverlap(holder.Key, key) && len(holder.Key) < len(key):
		how = fmt.Sprintf("lies inside workspace %q, held by", holder.Key)
	default:
		how = fmt.Sprintf("holds workspace %q, held by", holder.Key)
	}
	return fmt.Sprintf("workspace %q %s plan %s (run %s) since %s", key, how, holder.PlanID, holder.RunID,
		holder.Since.UTC().Format(time.RFC3339))
}

// BusyHolder returns the lease err says holds a workspace, when err is
// an ErrorTypeWorkspaceBusy refusal that carries it.
func BusyHolder(err error) (WorkspaceLease, bool) {
	var app *temporal.ApplicationError
	var holder WorkspaceLease
	if !errors.As(err, &app) || app.Type() != ErrorTypeWorkspaceBusy || !app.HasDetails() {
		return holder, false
	}
	return holder, app.Details(&holder) == nil && holder.PlanID != ""
}

// WorkspaceWait is the workspace a plan waits for (pending query).
type WorkspaceWait struct {
	Workspace string `json:"workspace"`
	// HeldBy says which plan holds it, as its last refusal did.
	HeldBy string    `json:"heldBy"`
	Since  time.Time `json:"since"`
}
