package signals_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func TestChainTakesEachLeasableAncestorTopDown(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"a", []string{"a"}},
		{"a/b", []string{"a", "a/b"}},
		{"team/shop/api", []string{"team", "team/shop", "team/shop/api"}},
		{"/srv/repo", []string{"/srv", "/srv/repo"}}, // "/" is the root: no intent
		{"/srv", []string{"/srv"}},
		{plan.DefaultWorkspace("plan-with/slash"), []string{plan.DefaultWorkspace("plan-with/slash")}},
	} {
		assert.Equal(t, tc.want, signals.LeaseChain(tc.key), tc.key)
	}
}

func TestWithin(t *testing.T) {
	req := func(key string) signals.WorkspaceLeaseRequest { return signals.WorkspaceLeaseRequest{Key: key} }
	assert.True(t, signals.LeaseWithin("a", req("a")))
	assert.True(t, signals.LeaseWithin("a", req("a/b/c")))
	assert.True(t, signals.LeaseWithin("/srv", req("/srv/repo")))
	assert.False(t, signals.LeaseWithin("a", req("ab")), "a sibling that shares a prefix")
	assert.False(t, signals.LeaseWithin("a/b", req("a")), "an ancestor")
}

// mark is plan's mark on at for its lease on key.
func mark(plan, key string) signals.WorkspaceLease {
	return signals.WorkspaceLease{Key: key, PlanID: plan, RunID: "r-" + plan}
}

func TestConflictExclusiveAgainstIntent(t *testing.T) {
	ask := func(plan, key string) signals.WorkspaceLeaseRequest {
		return signals.WorkspaceLeaseRequest{Key: key, PlanID: plan, RunID: "r-" + plan}
	}
	for _, tc := range []struct {
		name    string
		holders []signals.WorkspaceLease
		req     signals.WorkspaceLeaseRequest
		holder  string // the plan named, "" for granted
	}{
		{"exclusive on a free key", nil, ask("P", "a"), ""},
		{"intent on a free key", nil, ask("P", "a/b"), ""},
		{"exclusive against exclusive", []signals.WorkspaceLease{mark("Q", "a")}, ask("P", "a"), "Q"},
		{"intent against exclusive", []signals.WorkspaceLease{mark("Q", "a")}, ask("P", "a/b"), "Q"},
		{"exclusive against intent", []signals.WorkspaceLease{mark("Q", "a/c")}, ask("P", "a"), "Q"},
		{"intents share the key", []signals.WorkspaceLease{mark("Q", "a/c"), mark("R", "a/b")}, ask("P", "a/b"), ""},
		{"the exclusive holder is named first", []signals.WorkspaceLease{mark("A", "a/c"), mark("Q", "a")}, ask("P", "a"), "Q"},
		{"the plan's own exclusive mark", []signals.WorkspaceLease{mark("P", "a")}, ask("P", "a"), ""},
		{"the plan's own intent", []signals.WorkspaceLease{mark("P", "a/b")}, ask("P", "a"), ""},
		{"the plan's own mark from another run", []signals.WorkspaceLease{{Key: "a", PlanID: "P", RunID: "old"}}, ask("P", "a/b"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			holder, busy := signals.LeaseConflict("a", tc.holders, tc.req)
			assert.Equal(t, tc.holder != "", busy)
			assert.Equal(t, tc.holder, holder.PlanID)
		})
	}
}

// TestChainsOfOverlappingKeysMeet proves the rule whole: for every pair of
// keys, two plans taking the chains of both (either first) are refused on
// some key exactly when the keys overlap.
func TestChainsOfOverlappingKeysMeet(t *testing.T) {
	keys := []string{"a", "a/b", "a/b/c", "a/c", "ab", "b", "b/a", "/srv", "/srv/repo", "/srv/other"}
	for _, k1 := range keys {
		for _, k2 := range keys {
			marks := map[string][]signals.WorkspaceLease{}
			for _, at := range signals.LeaseChain(k1) {
				marks[at] = append(marks[at], mark("P", k1))
			}
			refused := false
			for _, at := range signals.LeaseChain(k2) {
				if _, busy := signals.LeaseConflict(at, marks[at], signals.WorkspaceLeaseRequest{Key: k2, PlanID: "Q", RunID: "r-Q"}); busy {
					refused = true
				}
			}
			assert.Equal(t, plan.WorkspacesOverlap(k1, k2), refused, "%s held, %s asked", k1, k2)
		}
	}
}
