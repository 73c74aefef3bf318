// Package leasetest holds lease workflows in memory, for tests of what
// takes leases (lease.Take, the AcquireWorkspace activity) without a
// Temporal server.
package leasetest

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/planmode/planmode/signals"
)

// Release is a release a Memory was sent: the mark Req names on key At.
type Release struct {
	At  string
	Req signals.WorkspaceLeaseRequest
}

// Memory is a lease.Registry that keeps each key's marks as its lease
// workflow does (signals.LeaseWithin, signals.LeaseConflict, one mark per plan), and
// knows which plans are closed. Its zero value holds nothing; it is safe
// for concurrent use.
type Memory struct {
	mu sync.Mutex
	// marks are the marks held, by key and plan id.
	marks map[string]map[string]signals.WorkspaceLease
	// closed are the plans that have closed.
	closed map[string]bool
	// released are the releases sent, in order.
	released []Release
	// faults make the acquires of a key fail with an error.
	faults map[string]error
}

// Close marks planID's plan closed: Open answers false for its leases.
func (m *Memory) Close(planID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed == nil {
		m.closed = map[string]bool{}
	}
	m.closed[planID] = true
}

// Fail makes acquires on key at fail with err (nil: succeed again).
func (m *Memory) Fail(at string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.faults == nil {
		m.faults = map[string]error{}
	}
	m.faults[at] = err
}

// Marks returns the marks held on key at, by plan id.
func (m *Memory) Marks(at string) []signals.WorkspaceLease {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.list(at)
}

// Held returns the keys that hold a mark, sorted.
func (m *Memory) Held() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for at, marks := range m.marks {
		if len(marks) > 0 {
			out = append(out, at)
		}
	}
	slices.Sort(out)
	return out
}

// Released returns the releases sent so far, in order.
func (m *Memory) Released() []Release {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.released)
}

// list returns the marks on at by plan id; m.mu is held.
func (m *Memory) list(at string) []signals.WorkspaceLease {
	var out []signals.WorkspaceLease
	for _, id := range slices.Sorted(maps.Keys(m.marks[at])) {
		out = append(out, m.marks[at][id])
	}
	return out
}

// Acquire answers as the lease workflow of key at.
func (m *Memory) Acquire(_ context.Context, at string, req signals.WorkspaceLeaseRequest) (signals.WorkspaceLease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.faults[at]; err != nil {
		return signals.WorkspaceLease{}, err
	}
	if err := req.Validate(); err != nil {
		return signals.WorkspaceLease{}, signals.Reject(signals.ErrorTypeInvalidInput, "%v", err)
	}
	if !signals.LeaseWithin(at, req) {
		return signals.WorkspaceLease{}, signals.Reject(signals.ErrorTypeInvalidInput, "workspace %q is not %q nor inside it", req.Key, at)
	}
	if holder, busy := signals.LeaseConflict(at, m.list(at), req); busy {
		return signals.WorkspaceLease{}, signals.WorkspaceBusy(req, holder)
	}
	if l, ok := m.marks[at][req.PlanID]; ok && l.Holds(req) {
		return l, nil
	}
	if m.marks == nil {
		m.marks = map[string]map[string]signals.WorkspaceLease{}
	}
	if m.marks[at] == nil {
		m.marks[at] = map[string]signals.WorkspaceLease{}
	}
	l := signals.WorkspaceLease{Key: req.Key, PlanID: req.PlanID, RunID: req.RunID, Since: time.Unix(0, 0)}
	m.marks[at][req.PlanID] = l
	return l, nil
}

// Release gives up the mark req names on at, if it is held.
func (m *Memory) Release(_ context.Context, at string, req signals.WorkspaceLeaseRequest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.released = append(m.released, Release{At: at, Req: req})
	if l, ok := m.marks[at][req.PlanID]; ok && l.Holds(req) {
		delete(m.marks[at], req.PlanID)
	}
	return nil
}

// Open reports whether l's plan has not been closed.
func (m *Memory) Open(_ context.Context, l signals.WorkspaceLease) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.closed[l.PlanID], nil
}
