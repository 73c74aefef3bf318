package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Bounds of a workspace key's lease workflow.
const (
	// leaseInputsPerRun is how many acquires and releases one run
	// handles before it continues as new: each costs a few events, so
	// the history stays a few thousand events long, far from the
	// server's limits on events, updates and signals per run. Only a
	// parent folder whose children many plans lease comes near it.
	leaseInputsPerRun = 500
	// maxLeaseBytes bounds the marks one key holds (keys and ids): its
	// state travels whole in every continue-as-new, which the server's
	// 2 MB payload limit bounds. About ten thousand plans' intents on one
	// parent folder fit.
	maxLeaseBytes = 1 << 20
	// leaseIdle is how long a key's workflow that holds nothing waits
	// for input before it ends: long enough that a folder leased plan
	// after plan keeps one run, short enough that the folders of ended
	// plans leave no open workflows behind.
	leaseIdle = time.Minute
)

// PlanWorkspaceLease holds the marks on one workspace key of a task
// queue (st.Key, see signals.LeaseWorkflowID): an exclusive lease on the
// key, or intents of plans leasing keys inside it (signals.LeaseChain).
// It grants a mark (signals.AcquireWorkspace) unless another plan's
// conflicts (signals.LeaseConflict), and plans give their marks back when they
// end (signals.ReleaseWorkspace). It continues as new with its whole
// state every leaseInputsPerRun inputs, and ends once it has held
// nothing and had no input for leaseIdle. The AcquireWorkspace activity
// starts it with Update-with-Start.
func PlanWorkspaceLease(ctx workflow.Context, st signals.WorkspaceLeases) error {
	return planWorkspaceLease(ctx, st, leaseInputsPerRun)
}

// keyLease is one run of PlanWorkspaceLease. Handlers run one at a time
// and never block, so each sees the state the last one left.
type keyLease struct {
	st signals.WorkspaceLeases
	// inputs counts the acquires and releases this run handled.
	inputs int
	// releases is the release-workspace signal channel.
	releases workflow.ReceiveChannel
}

// planWorkspaceLease is PlanWorkspaceLease continuing as new after
// perRun inputs.
func planWorkspaceLease(ctx workflow.Context, st signals.WorkspaceLeases, perRun int) error {
	if err := plan.ValidWorkspaceKey(st.Key); err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), signals.ErrorTypeInvalidInput, nil)
	}
	g := &keyLease{st: st, releases: signals.ReleaseWorkspace.Channel(ctx)}
	if g.st.Holders == nil {
		g.st.Holders = map[string]signals.WorkspaceLease{}
	}
	if err := g.register(ctx); err != nil {
		return err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v converter.RawValue
			g.releases.Receive(ctx, &v)
			g.releaseSignal(ctx, v)
		}
	})
	for {
		if err := workflow.Await(ctx, func() bool { return g.inputs >= perRun || len(g.st.Holders) == 0 }); err != nil {
			return err
		}
		if g.inputs >= perRun {
			return g.continueAsNew(ctx)
		}
		idle, err := g.idle(ctx)
		if err != nil || idle {
			return err
		}
	}
}

// idle waits, holding nothing, for leaseIdle without input, and reports
// whether the run may end then.
//
// Ending races with a plan's acquire, and that is safe: the run ends
// holding nothing, after every update it accepted has answered and every
// release signalled has been applied. An acquire that reaches it after
// that is refused by the server as the run closes (the run never
// answers it, so no mark is lost with it); the activity retries, and its
// Update-with-Start starts a new run, empty, which is the state the
// closed run left. USE_EXISTING keeps one run per key at a time, so two
// runs never grant marks on the same key side by side.
func (g *keyLease) idle(ctx workflow.Context) (bool, error) {
	seen := g.inputs
	input, err := workflow.AwaitWithTimeout(ctx, leaseIdle, func() bool { return g.inputs != seen })
	if err != nil || input {
		return false, err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && g.releases.Len() == 0 }); err != nil {
		return false, err
	}
	return g.inputs == seen && len(g.st.Holders) == 0, nil
}

// continueAsNew hands the whole state on, once every accepted acquire
// has answered and every release sent has been applied.
func (g *keyLease) continueAsNew(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && g.releases.Len() == 0 }); err != nil {
		return err
	}
	g.st.Runs++
	workflow.GetLogger(ctx).Info("workspace lease continuing as new", "key", g.st.Key, "holders", len(g.st.Holders), "runs", g.st.Runs)
	return workflow.NewContinueAsNewError(ctx, signals.LeaseWorkflowType, g.st)
}

// register registers the acquire and release updates and the query.
func (g *keyLease) register(ctx workflow.Context) error {
	if err := signals.AcquireWorkspace.SetUpdateHandler(ctx, g.acquire, g.validateAcquire); err != nil {
		return fmt.Errorf("update %s: %w", signals.AcquireWorkspace.Name, err)
	}
	release := func(_ workflow.Context, req signals.WorkspaceLeaseRequest) (signals.ReleaseWorkspaceResponse, error) {
		return g.release(req), nil
	}
	if err := signals.ReleaseWorkspace.SetUpdateHandler(ctx, release, nil); err != nil {
		return fmt.Errorf("update %s: %w", signals.ReleaseWorkspace.Name, err)
	}
	return signals.WorkspacesQuery.SetHandler(ctx, func() ([]signals.WorkspaceLease, error) { return g.list(), nil })
}

// validateAcquire refuses a request for a key outside this one, a mark
// another plan's conflicts with, naming that plan, and a mark that would
// grow the holders past maxLeaseBytes. It only reads state. A release
// signalled in the same workflow task may not have been applied yet:
// while one waits, the handler judges instead, after applying it.
func (g *keyLease) validateAcquire(_ workflow.Context, req signals.WorkspaceLeaseRequest) error {
	if !signals.LeaseWithin(g.st.Key, req) {
		return signals.Reject(signals.ErrorTypeInvalidInput, "workspace %q is not %q nor inside it", req.Key, g.st.Key)
	}
	if holder, busy := signals.LeaseConflict(g.st.Key, g.list(), req); busy && g.releases.Len() == 0 {
		return signals.WorkspaceBusy(req, holder)
	}
	if g.bytes()+leaseBytes(req.Key, req.PlanID, req.RunID) > maxLeaseBytes {
		return signals.Reject(signals.ErrorTypeTooLarge, "workspace %q has %d marks: no room for another", g.st.Key, len(g.st.Holders))
	}
	return nil
}

// acquire marks the key for req's plan, replacing any mark the plan held
// here: a plan works in one workspace. The same request again answers
// the mark it holds.
func (g *keyLease) acquire(ctx workflow.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
	g.inputs++
	for {
		var v converter.RawValue
		if !g.releases.ReceiveAsync(&v) {
			break
		}
		g.releaseSignal(ctx, v)
	}
	// The validator does not run on replay, and let a request through
	// while a release waited: the check is repeated here.
	if holder, busy := signals.LeaseConflict(g.st.Key, g.list(), req); busy {
		return signals.WorkspaceLease{}, signals.WorkspaceBusy(req, holder)
	}
	if l, ok := g.st.Holders[req.PlanID]; ok && l.Holds(req) {
		return l, nil
	}
	l := signals.WorkspaceLease{Key: req.Key, PlanID: req.PlanID, RunID: req.RunID, Since: workflow.Now(ctx)}
	g.st.Holders[req.PlanID] = l
	return l, nil
}

// release gives up the mark req names, if it is held.
func (g *keyLease) release(req signals.WorkspaceLeaseRequest) signals.ReleaseWorkspaceResponse {
	g.inputs++
	if l, ok := g.st.Holders[req.PlanID]; ok && l.Holds(req) {
		delete(g.st.Holders, req.PlanID)
		return signals.ReleaseWorkspaceResponse{Released: true}
	}
	return signals.ReleaseWorkspaceResponse{}
}

// releaseSignal applies a release sent as a signal; a payload that is
// not a valid request is logged and dropped.
func (g *keyLease) releaseSignal(ctx workflow.Context, v converter.RawValue) {
	raw, err := signalJSON(v)
	var req signals.WorkspaceLeaseRequest
	if err == nil {
		req, err = signals.ReleaseWorkspace.Decode(raw) //workflowcheck:ignore (strict JSON decoding of the payload only)
	}
	if err != nil {
		g.inputs++
		workflow.GetLogger(ctx).Warn("release refused", "error", err)
		return
	}
	g.release(req)
}

// list returns the marks held, by plan id.
func (g *keyLease) list() []signals.WorkspaceLease {
	out := make([]signals.WorkspaceLease, 0, len(g.st.Holders))
	for _, id := range workflow.DeterministicKeys(g.st.Holders) {
		out = append(out, g.st.Holders[id])
	}
	return out
}

// bytes is the size of the marks held, as leaseBytes counts it.
func (g *keyLease) bytes() int {
	n := 0
	for _, id := range workflow.DeterministicKeys(g.st.Holders) {
		l := g.st.Holders[id]
		n += leaseBytes(l.Key, l.PlanID, l.RunID)
	}
	return n
}

// leaseBytes is about what one mark costs the state as JSON.
func leaseBytes(key, planID, runID string) int {
	return len(key) + 2*len(planID) + len(runID) + 100
}
