package lease_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/workspace/lease"
	"github.com/planmode/planmode/workspace/lease/leasetest"
)

func ask(plan, key string) signals.WorkspaceLeaseRequest {
	return signals.WorkspaceLeaseRequest{Key: key, PlanID: plan, RunID: "r-" + plan}
}

func TestTakeMarksTheChainAndIsIdempotent(t *testing.T) {
	reg := &leasetest.Memory{}
	l, err := lease.Take(context.Background(), reg, ask("P", "a/b/c"), nil)
	require.NoError(t, err)
	assert.Equal(t, "a/b/c", l.Key)
	assert.Equal(t, []string{"a", "a/b", "a/b/c"}, reg.Held())
	again, err := lease.Take(context.Background(), reg, ask("P", "a/b/c"), nil)
	require.NoError(t, err)
	assert.Equal(t, l, again)
	assert.Empty(t, reg.Released(), "taking again gives nothing back")
}

func TestTakeRefusalNamesTheHolderAndBacksOut(t *testing.T) {
	reg := &leasetest.Memory{}
	_, err := lease.Take(context.Background(), reg, ask("Q", "a/b"), nil)
	require.NoError(t, err)

	_, err = lease.Take(context.Background(), reg, ask("P", "a/b/c"), nil)
	var busy *lease.Busy
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, "Q", busy.Holder.PlanID)
	assert.Contains(t, err.Error(), `workspace "a/b/c" lies inside workspace "a/b", held by plan Q`)
	assert.Equal(t, []leasetest.Release{{At: "a", Req: ask("P", "a/b/c")}}, reg.Released(), "P's intent on a given back")
	assert.Equal(t, []signals.WorkspaceLease{{Key: "a/b", PlanID: "Q", RunID: "r-Q", Since: busy.Holder.Since}}, reg.Marks("a"))

	_, err = lease.Take(context.Background(), reg, ask("R", "a"), nil)
	require.ErrorAs(t, err, &busy)
	assert.Contains(t, err.Error(), `workspace "a" holds workspace "a/b", held by plan Q`, "an intent holder is named with its lease")
}

func TestTakeSiblingsShareTheirParent(t *testing.T) {
	reg := &leasetest.Memory{}
	for _, p := range []string{"P", "Q"} {
		_, err := lease.Take(context.Background(), reg, ask(p, "team/"+p), nil)
		require.NoError(t, err, p)
	}
	assert.Len(t, reg.Marks("team"), 2, "two intents on the parent")
}

func TestTakeReleasesAClosedHoldersMarkOnly(t *testing.T) {
	reg := &leasetest.Memory{}
	_, err := lease.Take(context.Background(), reg, ask("Q", "a/b"), nil)
	require.NoError(t, err)
	reg.Close("Q")
	var stale []string
	l, err := lease.Take(context.Background(), reg, ask("P", "a"), func(h signals.WorkspaceLease) { stale = append(stale, h.PlanID) })
	require.NoError(t, err)
	assert.Equal(t, "P", l.PlanID)
	assert.Equal(t, []string{"Q"}, stale)
	assert.Equal(t, []leasetest.Release{{At: "a", Req: ask("Q", "a/b")}}, reg.Released(), "the stale intent on a, where it was met")
	assert.Len(t, reg.Marks("a/b"), 1, "Q's lease on a/b stays until someone meets it")
}

func TestTakeFaultBacksOutTheKeyItMetToo(t *testing.T) {
	reg := &leasetest.Memory{}
	reg.Fail("a/b", errors.New("unavailable"))
	_, err := lease.Take(context.Background(), reg, ask("P", "a/b"), nil)
	require.Error(t, err)
	var busy *lease.Busy
	var refused *lease.Refused
	assert.False(t, errors.As(err, &busy) || errors.As(err, &refused), "a fault, for a retry")
	assert.Equal(t, []leasetest.Release{{At: "a/b", Req: ask("P", "a/b")}, {At: "a", Req: ask("P", "a/b")}}, reg.Released(),
		"the key whose answer was lost, then what was taken, bottom up")
	assert.Empty(t, reg.Held())
}

func TestTakeRefusesAnInvalidKey(t *testing.T) {
	_, err := lease.Take(context.Background(), &leasetest.Memory{}, ask("P", "a/../b"), nil)
	var refused *lease.Refused
	require.ErrorAs(t, err, &refused)
}
