package serve_test

import (
	"context"
	"iter"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

func TestFollowersShareOneUpstream(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 2)
	ts := startServer(t, serve.Config{}, src, "")
	const followers = 10
	readers := make([]*sseReader, followers)
	for i := range readers {
		resp := ts.get(t, "/plans/p1/events", adminToken)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		readers[i] = newSSEReader(resp.Body)
		assert.Equal(t, []int64{1, 2}, readers[i].seqs(t, 2))
	}
	src.append("p1", 3)
	var wg sync.WaitGroup
	for _, r := range readers {
		wg.Go(func() { assert.Equal(t, []int64{3, 4, 5}, r.seqs(t, 3)) })
	}
	wg.Wait()
	assert.Equal(t, int64(1), src.follows.Load(), "ten followers, one upstream")
	assert.Equal(t, 1, ts.Upstreams())

	// A follower that asks for older events than the shared upstream
	// holds follows the Source on its own, and misses nothing.
	resp := ts.get(t, "/plans/p1/events", adminToken, "Last-Event-ID", "0")
	assert.Equal(t, seqRange(1, 5), newSSEReader(resp.Body).seqs(t, 5))
	assert.Equal(t, int64(1), src.follows.Load(), "the ring still holds 1..5: shared")
}

func TestOldFollowerFollowsTheSourceItself(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	s := serve.New(serve.Config{RingSize: 4}, src)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	first := pull(t, s.FollowForTest(ctx, "p1", 0))
	defer first.stop()
	assert.Equal(t, int64(1), first.seq(t))
	src.append("p1", 10)
	require.Eventually(t, func() bool { return s.ReadForTest("p1") == 11 }, patience, tick)

	// The ring holds 8..11: one that has seen 2 cannot be served from
	// it, nor can the first follower, which has seen 1.
	late := pull(t, s.FollowForTest(ctx, "p1", 2))
	defer late.stop()
	assert.Equal(t, seqRange(3, 11), late.seqs(t, 9))
	assert.Equal(t, seqRange(2, 11), first.seqs(t, 10), "fell behind the ring: goes on from the Source, missing nothing")
	assert.Equal(t, int64(3), src.follows.Load(), "the shared one, then one each")

	// A follower at the head shares again.
	head := pull(t, s.FollowForTest(ctx, "p1", 11))
	defer head.stop()
	src.append("p1", 1)
	assert.Equal(t, int64(12), head.seq(t))
	assert.Equal(t, int64(12), first.seq(t))
}

func TestLastFollowerStopsTheUpstream(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	resp := ts.get(t, "/plans/p1/events", adminToken)
	assert.Equal(t, []int64{1}, newSSEReader(resp.Body).seqs(t, 1))
	require.Equal(t, int64(1), src.open.Load())
	resp.Body.Close()
	require.Eventually(t, func() bool { return src.open.Load() == 0 && ts.Upstreams() == 0 && ts.Streams() == 0 },
		patience, tick, "a plan nobody follows costs nothing")
}

// puller pulls a follow one event at a time.
type puller struct {
	next func() (int64, error, bool)
	stop func()
}

func pull(t *testing.T, seq iter.Seq2[signals.Event, error]) *puller {
	t.Helper()
	next, stop := iter.Pull2(seq)
	return &puller{stop: stop, next: func() (int64, error, bool) {
		ev, err, ok := next()
		return ev.Seq, err, ok
	}}
}

func (p *puller) seq(t *testing.T) int64 {
	t.Helper()
	s, err, ok := p.next()
	require.True(t, ok, "the follow ended")
	require.NoError(t, err)
	return s
}

func (p *puller) seqs(t *testing.T, n int) []int64 {
	t.Helper()
	var out []int64
	for range n {
		out = append(out, p.seq(t))
	}
	return out
}
