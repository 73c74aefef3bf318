package signals

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
)

// Workspace leases keep open plans apart: no two share a file. Each
// workspace key (its path relative to the workers' workspace.root) has a
// small PlanWorkspaceLease workflow of its own, started by the first plan
// that needs it and ended when it has held nothing for a while, so plans
// in different workspaces never meet in one workflow. Nesting is kept
// with intent marks (hierarchical locking): to lease key K a plan first
// takes an intent on each leasable ancestor of K, top down, then the
// exclusive lease on K. A key's workflow grants the exclusive lease when
// no other plan holds it exclusively or has an intent on it, and an
// intent when no other plan holds it exclusively (workspace/lease). A
// plan acquires its lease (the AcquireWorkspace activity, an
// Update-with-Start of [AcquireWorkspace] on each key of its chain)
// before anything touches its workspace, carries it across
// continue-as-new, and releases it ([ReleaseWorkspace], to each key of
// its chain) however it ends. A plan that ends without releasing
// (terminated, timed out) leaves stale marks, which the next plan that
// meets one finds closed and releases.

// LeaseWorkflowType is the registered name of the lease workflow of one
// workspace key.
const LeaseWorkflowType = "PlanWorkspaceLease"

// leaseIDPrefix starts every lease workflow id.
const leaseIDPrefix = "planmode-lease/"

// LeaseWorkflowID returns the id of the lease workflow of workspace key
// on taskQueue ("planmode-lease/<task queue>/<key>"): one per key and
// queue, since the workers of one queue share one workspace.root. When
// that id would pass MaxWorkflowIDBytes the key is replaced by
// "sha256-" and its hex SHA-256, so a long key still has an id of its
// own (short of a hash collision); the workflow's input carries the key
// itself.
func LeaseWorkflowID(taskQueue, key string) string {
	id := leaseIDPrefix + taskQueue + "/" + key
	if len(id) <= MaxWorkflowIDBytes {
		return id
	}
	sum := sha256.Sum256([]byte(key))
	return leaseIDPrefix + taskQueue + "/sha256-" + hex.EncodeToString(sum[:])
}

// AcquireWorkspace takes a plan's mark on the key of a lease workflow:
// the exclusive lease when the request's key is the workflow's, an
// intent when it lies inside it. It is an update only: the plan needs
// the answer before it touches the workspace, and the validator refuses
// a busy key before anything is recorded, so a plan waiting for one costs
// the workflow no history. The refusal is an application error of type
// [ErrorTypeWorkspaceBusy] whose first detail is the holder's
// [WorkspaceLease] (for an intent holder, the lease on the key inside
// this one it takes). The same plan run acquiring again gets the mark it
// holds; the same plan with another request replaces its mark.
var AcquireWorkspace = UpdateOnly[WorkspaceLeaseRequest, WorkspaceLease]{
	Name:        "acquire-workspace",
	Description: "Mark a workspace key for a plan (exclusive, or an intent for a key inside it), refused when another plan's mark conflicts. Answers the mark's lease.",
}

// ReleaseWorkspace gives a plan's mark on a lease workflow's key up; the
// request names the lease the mark was taken for. The plan sends it as a
// signal to each key of its chain when it ends (from workflow code, where
// an update cannot be sent); the AcquireWorkspace activity sends it as an
// update to back out of a chain it could not finish and to clear a closed
// plan's stale mark before it tries again. Releasing a mark that is not
// held, or is held by another run, changes nothing.
var ReleaseWorkspace = Handler[WorkspaceLeaseRequest, ReleaseWorkspaceResponse]{
	Name:        "release-workspace",
	Description: "Give up the mark of a plan run on a workspace key. Answers whether one was released.",
}

// WorkspacesQuery lists the marks a lease workflow's key holds, as the
// leases they were taken for, by plan: one whose key is the workflow's is
// the exclusive lease, the others intents.
var WorkspacesQuery = Query[[]WorkspaceLease]{
	Name:        "workspaces",
	Description: "The marks on the workspace key, as the leases they were taken for, by plan.",
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

// WorkspaceLeases is a lease workflow's whole state, its input and what
// it hands its continuation.
type WorkspaceLeases struct {
	// Key is the workspace key whose marks the workflow holds.
	Key string `json:"key"`
	// Holders are the marks held, by plan id: each the lease its plan
	// takes, on Key (exclusive) or a key inside it (an intent).
	Holders map[string]WorkspaceLease `json:"holders,omitempty"`
	// Runs counts the runs before this one.
	Runs int `json:"runs"`
}

// WorkspaceBusy returns a lease workflow's refusal of req: a non-retryable
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
