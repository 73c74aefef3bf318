package signals

import (
	"strings"

	"github.com/planmode/planmode/plan"
)

// Chain returns the keys a plan takes marks on to lease workspace key,
// top down: an intent on each ancestor of key that can be leased (see
// plan.ValidWorkspaceKey: the workspace root takes none), then the
// exclusive lease on key itself, last. A plan's default workspace
// (plan.DefaultWorkspace) is one path element under the root, so its
// chain is the key alone. Taking the marks in this order, every plan
// the same, is what makes two plans whose keys overlap meet on one key:
// the shorter key, where one holds the exclusive lease and the other an
// intent.
func LeaseChain(key string) []string {
	var out []string
	for i := 1; i < len(key); i++ {
		if key[i] != '/' {
			continue
		}
		if up := key[:i]; plan.ValidWorkspaceKey(up) == nil {
			out = append(out, up)
		}
	}
	return append(out, key)
}

// Within reports whether req's key is at or lies inside it: the
// requests the lease workflow of key at may answer.
func LeaseWithin(at string, req WorkspaceLeaseRequest) bool {
	return req.Key == at || strings.HasPrefix(req.Key, at+"/")
}

// Exclusive reports whether l is an exclusive mark on key at, rather than
// an intent taken for a key inside it.
func LeaseExclusive(at string, l WorkspaceLease) bool { return l.Key == at }

// Conflict returns the mark among holders (the marks held on key at, in
// a fixed order) that keeps req from its mark on at, when there is one.
// req wants the exclusive lease when its key is at, an intent when its
// key lies inside at (see Within). Another plan's exclusive mark refuses
// both; another plan's intent refuses the exclusive lease only, so plans
// in sibling folders share their parent's intents. The plan's own marks
// never conflict. The exclusive holder is named before an intent holder.
func LeaseConflict(at string, holders []WorkspaceLease, req WorkspaceLeaseRequest) (WorkspaceLease, bool) {
	var intent *WorkspaceLease
	for i, h := range holders {
		switch {
		case h.PlanID == req.PlanID:
		case LeaseExclusive(at, h):
			return h, true
		case intent == nil && req.Key == at:
			intent = &holders[i]
		}
	}
	if intent != nil {
		return *intent, true
	}
	return WorkspaceLease{}, false
}
