package workflows

import (
	"fmt"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Bounds of the workspace registry.
const (
	// registryInputsPerRun is how many acquires and releases one registry
	// run handles before it continues as new: each costs a few events,
	// so the history stays a few thousand events long, far from the
	// server's limits on events, updates and signals per run.
	registryInputsPerRun = 500
	// maxLeaseBytes bounds the leases the registry holds (keys and ids):
	// its state travels whole in every continue-as-new, which the
	// server's 2 MB payload limit bounds. About ten thousand open plans
	// with the usual ids fit.
	maxLeaseBytes = 1 << 20
)

// PlanWorkspaces is the workspace registry of one task queue: it holds a
// lease per open plan, keyed by the workspace's path relative to the
// workspace root, and refuses a workspace that is, holds or lies inside
// one another plan holds (signals.AcquireWorkspace); plans release their
// lease when they end (signals.ReleaseWorkspace). It runs for ever,
// continuing as new with its whole state every registryInputsPerRun
// inputs. The AcquireWorkspace activity starts it with Update-with-Start.
func PlanWorkspaces(ctx workflow.Context, st signals.WorkspaceRegistry) error {
	return planWorkspaces(ctx, st, registryInputsPerRun)
}

// registry is one run of PlanWorkspaces. Handlers run one at a time and
// never block, so each sees the state the last one left.
type registry struct {
	st signals.WorkspaceRegistry
	// inputs counts the acquires and releases this run handled.
	inputs int
	// releases is the release-workspace signal channel.
	releases workflow.ReceiveChannel
}

// planWorkspaces is PlanWorkspaces continuing as new after perRun inputs.
func planWorkspaces(ctx workflow.Context, st signals.WorkspaceRegistry, perRun int) error {
	g := &registry{st: st, releases: signals.ReleaseWorkspace.Channel(ctx)}
	if g.st.Leases == nil {
		g.st.Leases = map[string]signals.WorkspaceLease{}
	}
	ch := g.releases
	if err := g.register(ctx); err != nil {
		return err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v converter.RawValue
			ch.Receive(ctx, &v)
			g.releaseSignal(ctx, v)
		}
	})
	if err := workflow.Await(ctx, func() bool { return g.inputs >= perRun }); err != nil {
		return err
	}
	// Every accepted acquire has answered and every release sent has
	// been applied, so the continuation starts from the whole state.
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) && ch.Len() == 0 }); err != nil {
		return err
	}
	g.st.Runs++
	workflow.GetLogger(ctx).Info("workspace registry continuing as new", "leases", len(g.st.Leases), "runs", g.st.Runs)
	return workflow.NewContinueAsNewError(ctx, signals.WorkspacesWorkflowType, g.st)
}

// register registers the acquire and release updates and the query.
func (g *registry) register(ctx workflow.Context) error {
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

// validateAcquire refuses a workspace that overlaps one another plan
// holds, naming that plan, and refuses to grow the leases past
// maxLeaseBytes. It only reads state. A release signalled in the same
// workflow task may not have been applied yet: while one waits, the
// handler judges instead, after applying it.
func (g *registry) validateAcquire(_ workflow.Context, req signals.WorkspaceLeaseRequest) error {
	if holder, busy := g.holder(req); busy && g.releases.Len() == 0 {
		return signals.WorkspaceBusy(req, holder)
	}
	if g.bytes()+leaseBytes(req.Key, req.PlanID, req.RunID) > maxLeaseBytes {
		return signals.Reject(signals.ErrorTypeTooLarge, "the registry holds %d leases: no room for another", len(g.st.Leases))
	}
	return nil
}

// holder returns the lease of another plan that req's workspace
// overlaps, the first by key.
func (g *registry) holder(req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, bool) {
	for _, key := range workflow.DeterministicKeys(g.st.Leases) {
		l := g.st.Leases[key]
		if l.PlanID != req.PlanID && plan.WorkspacesOverlap(key, req.Key) {
			return l, true
		}
	}
	return signals.WorkspaceLease{}, false
}

// acquire leases req's workspace to its plan, which gives up any other
// lease it held: a plan works in one workspace. The same request again
// answers the lease it holds.
func (g *registry) acquire(ctx workflow.Context, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
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
	if holder, busy := g.holder(req); busy {
		return signals.WorkspaceLease{}, signals.WorkspaceBusy(req, holder)
	}
	if l, ok := g.st.Leases[req.Key]; ok && l.PlanID == req.PlanID && l.RunID == req.RunID {
		return l, nil
	}
	for _, key := range workflow.DeterministicKeys(g.st.Leases) {
		if g.st.Leases[key].PlanID == req.PlanID {
			delete(g.st.Leases, key)
		}
	}
	l := signals.WorkspaceLease{Key: req.Key, PlanID: req.PlanID, RunID: req.RunID, Since: workflow.Now(ctx)}
	g.st.Leases[req.Key] = l
	return l, nil
}

// release gives up the lease req names, if it is held.
func (g *registry) release(req signals.WorkspaceLeaseRequest) signals.ReleaseWorkspaceResponse {
	g.inputs++
	if l, ok := g.st.Leases[req.Key]; ok && l.Holds(req) {
		delete(g.st.Leases, req.Key)
		return signals.ReleaseWorkspaceResponse{Released: true}
	}
	return signals.ReleaseWorkspaceResponse{}
}

// releaseSignal applies a release sent as a signal; a payload that is
// not a valid request is logged and dropped.
func (g *registry) releaseSignal(ctx workflow.Context, v converter.RawValue) {
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

// list returns the leases by key.
func (g *registry) list() []signals.WorkspaceLease {
	out := make([]signals.WorkspaceLease, 0, len(g.st.Leases))
	for _, key := range workflow.DeterministicKeys(g.st.Leases) {
		out = append(out, g.st.Leases[key])
	}
	return out
}

// bytes is the size of the leases held, as leaseBytes counts it.
func (g *registry) bytes() int {
	n := 0
	for _, key := range workflow.DeterministicKeys(g.st.Leases) {
		l := g.st.Leases[key]
		n += leaseBytes(l.Key, l.PlanID, l.RunID)
	}
	return n
}

// leaseBytes is about what one lease costs the registry's state as JSON.
func leaseBytes(key, planID, runID string) int {
	return 2*len(key) + len(planID) + len(runID) + 100
}
