package testsuite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace/lease"
)

// burstPlans is how many plans take a lease at once in
// TestLeaseBurstNeverOverlaps.
const burstPlans = 1000

// burstKeys is a tree of overlapping workspace keys: 20 top folders, each
// with 3 children, each with 3 grandchildren.
func burstKeys() []string {
	var keys []string
	for top := range 20 {
		t := fmt.Sprintf("t%02d", top)
		keys = append(keys, t)
		for c := range 3 {
			child := fmt.Sprintf("%s/c%d", t, c)
			keys = append(keys, child)
			for g := range 3 {
				keys = append(keys, fmt.Sprintf("%s/g%d", child, g))
			}
		}
	}
	return keys
}

// holding is the workspaces held in this process, by key, and checks
// each new one against them.
type holding struct {
	mu       sync.Mutex
	held     map[string]string
	overlaps []string
}

// add records plan's key, and any key another plan holds that overlaps
// it: the leases must never let that happen.
func (h *holding) add(key, planID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, p := range h.held {
		if plan.WorkspacesOverlap(k, key) {
			h.overlaps = append(h.overlaps, fmt.Sprintf("%s took %q while %s held %q", planID, key, p, k))
		}
	}
	h.held[key] = planID
}

func (h *holding) remove(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, key)
}

// burstRegistry is the lease workflows of a queue, with the open plans
// being this process's: a plan is open until it is marked dead.
type burstRegistry struct {
	lease.Registry
	dead sync.Map
}

func (r *burstRegistry) Open(_ context.Context, l signals.WorkspaceLease) (bool, error) {
	_, dead := r.dead.Load(l.PlanID)
	return !dead, nil
}

// burstTally counts how the takes ended.
type burstTally struct {
	leased, busy, retries, reclaimed atomic.Int64
	mu                               sync.Mutex
	failed                           []string
}

// TestLeaseBurstNeverOverlaps is the attack on the lease workflows: a
// thousand plans take leases at once on a tree of overlapping keys
// against the dev server, each holding its key for a moment and then
// releasing it as a plan does when it ends (by signal, to each key of
// its chain). One plan in twenty dies holding its lease (it never
// releases), so that others meet its stale marks and clear them. Every
// holder records its key in a set right after its lease is granted and
// removes it right before it releases, and each addition is checked
// against the keys in the set: no two holders ever overlap. Every take
// ends in a lease or a busy refusal; other errors (the server refusing
// an update under load) are retried, as the activity retries them.
func TestLeaseBurstNeverOverlaps(t *testing.T) {
	t.Parallel()
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	reg := &burstRegistry{Registry: lease.Of(pw.srv.Client, pw.queue)}
	h := &holding{held: map[string]string{}}
	var tally burstTally
	keys := burstKeys()

	start := time.Now()
	var wg sync.WaitGroup
	for i := range burstPlans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("burst-%04d", i)
			req := signals.WorkspaceLeaseRequest{Key: keys[rand.IntN(len(keys))], PlanID: id, RunID: "r-" + id}
			burstPlan(ctx, t, pw, reg, h, &tally, req, i%20 == 19)
		}()
	}
	wg.Wait()
	t.Logf("%d takes in %s: %d leased, %d busy, %d retries, %d stale marks cleared", burstPlans,
		time.Since(start).Round(time.Millisecond), tally.leased.Load(), tally.busy.Load(), tally.retries.Load(), tally.reclaimed.Load())

	assert.Empty(t, h.overlaps, "two holders overlapped")
	assert.Empty(t, tally.failed, "takes that ended in neither a lease nor a refusal")
	assert.Equal(t, int64(burstPlans), tally.leased.Load()+tally.busy.Load())
	assert.Positive(t, tally.leased.Load())
	assert.Positive(t, tally.busy.Load(), "the keys overlap: some takes are refused")

	desc, err := pw.srv.Client.DescribeWorkflow(ctx, signals.LeaseWorkflowID(pw.queue, keys[0]), "")
	if assert.NoError(t, err) {
		assert.Equal(t, int32(signals.PriorityKeyCritical), desc.RawResponse.GetWorkflowExecutionInfo().GetPriority().GetPriorityKey(),
			"lease workflows' tasks go before the plans'")
	}
}

// burstPlan takes req's lease, retrying faults, holds it for a moment and
// releases it, or dies holding it.
func burstPlan(ctx context.Context, t *testing.T, pw *planWorker, reg *burstRegistry, h *holding, tally *burstTally,
	req signals.WorkspaceLeaseRequest, dies bool) {
	wait := 100 * time.Millisecond
	for try := 0; ; try++ {
		_, err := lease.Take(ctx, reg, req, func(signals.WorkspaceLease) { tally.reclaimed.Add(1) })
		var busy *lease.Busy
		switch {
		case err == nil:
			tally.leased.Add(1)
			h.add(req.Key, req.PlanID)
			// The plan works in its workspace for a moment.
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			h.remove(req.Key)
			if dies {
				reg.dead.Store(req.PlanID, true)
				return
			}
			for _, at := range signals.LeaseChain(req.Key) {
				if err := signals.ReleaseWorkspace.Signal(ctx, pw.srv.Client, signals.LeaseWorkflowID(pw.queue, at), req); err != nil {
					t.Errorf("release %s on %q: %v", req.PlanID, at, err)
				}
			}
			return
		case errors.As(err, &busy):
			tally.busy.Add(1)
			return
		case try >= 30 || ctx.Err() != nil:
			tally.mu.Lock()
			tally.failed = append(tally.failed, fmt.Sprintf("%s on %q: %v", req.PlanID, req.Key, err))
			tally.mu.Unlock()
			return
		}
		tally.retries.Add(1)
		time.Sleep(wait + time.Duration(rand.IntN(int(wait))))
		wait = min(2*wait, 2*time.Second)
	}
}
