package serve_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

func TestEventsStreamUntilThePlanEnds(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 2)
	ts := startServer(t, serve.Config{}, src, "")
	resp := ts.get(t, "/plans/p1/events", adminToken)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))

	r := newSSEReader(resp.Body)
	first := r.nextEvent(t)
	assert.Equal(t, "1", first.id)
	assert.Equal(t, string(signals.EventStepStarted), first.event)
	var ev signals.Event
	require.NoError(t, json.Unmarshal([]byte(first.data), &ev))
	assert.Equal(t, int64(1), ev.Seq)
	assert.Equal(t, "p1", ev.PlanID)
	assert.Equal(t, []int64{2}, r.seqs(t, 1))

	// Events appended while the stream is open arrive, then the end of
	// the log ends the stream.
	src.append("p1", 2)
	assert.Equal(t, []int64{3, 4}, r.seqs(t, 2))
	src.end("p1")
	_, err := r.next()
	assert.ErrorIs(t, err, io.EOF, "the stream ends with the plan's log")
}

func TestResumeAfterLastEventID(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 6)
	src.end("p1")
	ts := startServer(t, serve.Config{}, src, "")

	resp := ts.get(t, "/plans/p1/events", adminToken, "Last-Event-ID", "3")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := newSSEReader(resp.Body)
	assert.Equal(t, []int64{4, 5, 6}, r.seqs(t, 3), "seq 4 first, in order, no duplicate")
	_, err := r.next()
	assert.ErrorIs(t, err, io.EOF)

	// The query's after does the same for clients that cannot set the
	// header; the header wins when both are given.
	resp = ts.get(t, "/plans/p1/events?after=5", adminToken)
	assert.Equal(t, []int64{6}, newSSEReader(resp.Body).seqs(t, 1))
	resp = ts.get(t, "/plans/p1/events?after=1", adminToken, "Last-Event-ID", "4")
	assert.Equal(t, []int64{5, 6}, newSSEReader(resp.Body).seqs(t, 2))
}

func TestMalformedResumePointIs400(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	for _, v := range []string{"abc", "-1", "+1", "1.5", "0x10", "1e3", "1,2", "99999999999999999999", "9223372036854775808"} {
		resp := ts.get(t, "/plans/p1/events", adminToken, "Last-Event-ID", v)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "Last-Event-ID %q", v)
		assert.Contains(t, errorOf(t, resp), "Last-Event-ID")
	}
	for _, v := range []string{"abc", "-1", "%2B1", "1.5", "0x10", "%201", "1&after=2", ""} {
		resp := ts.get(t, "/plans/p1/events?after="+v, adminToken)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "after=%s", v)
		assert.Contains(t, errorOf(t, resp), "after")
	}
	assert.Zero(t, src.follows.Load(), "nothing is read for a malformed request")
	resp := ts.get(t, "/plans/p1/events?after=9223372036854775807", adminToken)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the largest sequence number is one")
}

func TestHeartbeat(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 0)
	ts := startServer(t, serve.Config{Heartbeat: 20 * time.Millisecond}, src, "")
	resp := ts.get(t, "/plans/p1/events", adminToken)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := newSSEReader(resp.Body)
	// A plan with no events still says something, again and again.
	for range 3 {
		m, err := r.next()
		require.NoError(t, err)
		assert.Equal(t, sseMessage{comment: "ping"}, m)
	}
	src.append("p1", 1)
	assert.Equal(t, []int64{1}, r.seqs(t, 1), "events still arrive between pings")
}

func TestModelTextHasNoID(t *testing.T) {
	src := &textSource{fakeSource: newFakeSource()}
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	resp := ts.get(t, "/plans/p1/events", adminToken)
	r := newSSEReader(resp.Body)
	m := r.nextEvent(t)
	assert.Equal(t, "", m.id, "a model call's text is not in the log: a client cannot resume after it")
	assert.Equal(t, string(signals.EventModelText), m.event)
	assert.Equal(t, []int64{1}, r.seqs(t, 1))
}

func TestSourceFailureEndsTheStream(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, &failingSource{src}, "")
	resp := ts.get(t, "/plans/p1/events", adminToken)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := newSSEReader(resp.Body)
	assert.Equal(t, []int64{1}, r.seqs(t, 1))
	m := r.nextEvent(t)
	assert.Equal(t, "error", m.event)
	assert.JSONEq(t, `{"error":"the plan's events could not be read; try again"}`, m.data, "the cause stays in the log")
	_, err := r.next()
	assert.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), "%v", err)
}
