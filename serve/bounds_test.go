package serve_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

// openStream dials the server, asks for plan's events and reads the
// answer's head; it returns the connection, positioned at the body, and
// the status line.
func openStream(t *testing.T, addr, plan string, readHead bool) (net.Conn, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "GET /plans/%s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", plan, addr, adminToken)
	require.NoError(t, err)
	if !readHead {
		return conn, ""
	}
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(patience)))
	// Read byte by byte up to the blank line: a buffered reader could
	// take body bytes with it.
	var head strings.Builder
	b := make([]byte, 1)
	for !strings.HasSuffix(head.String(), "\r\n\r\n") {
		_, err := conn.Read(b)
		require.NoError(t, err, "head so far: %q", head.String())
		head.WriteByte(b[0])
	}
	require.NoError(t, conn.SetReadDeadline(time.Time{}))
	status, _, _ := strings.Cut(head.String(), "\r\n")
	return conn, status
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func TestSlowReaderIsDropped(t *testing.T) {
	src := newFakeSource()
	src.addEndless("p1")
	ts := startServer(t, serve.Config{WriteTimeout: 200 * time.Millisecond, RingSize: 16}, src, "")
	before := heapInUse()

	// A client that asks and then never reads: the plan has events
	// without end, the socket's buffers fill and a write blocks.
	conn, _ := openStream(t, ts.addr, "p1", false)
	require.Eventually(t, func() bool { return src.pulled.Load() > 0 }, patience, tick, "the stream started")
	require.Eventually(t, func() bool { return ts.Streams() == 0 && src.open.Load() == 0 }, patience, tick,
		"the server drops the stream, and stops reading the plan for it")
	pulled := src.pulled.Load()

	// What the server held for it is gone: its heap is about where it
	// was, not the size of an endless log.
	assert.Less(t, int64(heapInUse())-int64(before), int64(32<<20), "heap grew by more than 32 MiB")
	assert.Equal(t, pulled, src.pulled.Load(), "no Follow runs, so nothing more is read")

	// The server closed the connection: what the socket held drains and
	// then the stream ends, unterminated.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(patience)))
	_, err := io.Copy(io.Discard, conn)
	if err != nil {
		assert.ErrorContains(t, err, "reset", "closed by the server, not timed out here")
	}
	assert.Equal(t, http.StatusOK, ts.get(t, "/healthz", "").StatusCode)
}

func TestConnectionBound(t *testing.T) {
	const bound = 1000
	src := newFakeSource()
	src.add("idle", "", 0)
	ts := startServer(t, serve.Config{MaxConnections: bound}, src, "")

	// Open bound idle streams, a few at a time.
	conns := make(chan net.Conn, bound)
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range work {
				conn, status := openStream(t, ts.addr, "idle", true)
				assert.Equal(t, "HTTP/1.1 200 OK", status)
				conns <- conn
			}
		})
	}
	for range bound {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	require.Len(t, conns, bound)
	assert.Equal(t, bound, ts.Streams())
	assert.Equal(t, int64(1), src.follows.Load(), "a thousand followers of one plan, one upstream")

	// The next is refused, at once and plainly.
	conn, status := openStream(t, ts.addr, "idle", true)
	assert.Equal(t, "HTTP/1.1 503 Service Unavailable", status)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(patience)))
	rest, err := io.ReadAll(bufio.NewReader(conn))
	require.NoError(t, err, "the server closes a refused connection")
	assert.Contains(t, string(rest), "serve.maxConnections")

	// The server is up, and says so.
	assert.Equal(t, http.StatusOK, ts.get(t, "/healthz", "").StatusCode)

	// Once followers leave, others are served again.
	for range 10 {
		(<-conns).Close()
	}
	require.Eventually(t, func() bool { return ts.Streams() == bound-10 }, patience, tick)
	_, status = openStream(t, ts.addr, "idle", true)
	assert.Equal(t, "HTTP/1.1 200 OK", status)
}

func TestRestartMissesNothing(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 3)
	first := startServer(t, serve.Config{}, src, "")
	resp := first.get(t, "/plans/p1/events", adminToken)
	r := newSSEReader(resp.Body)
	got := r.seqs(t, 3)

	// The server is killed; the plan goes on meanwhile.
	first.stop()
	_, err := r.next()
	require.Error(t, err, "the stream ended with the server")
	src.append("p1", 3)

	// Started again on the same port, it serves the client that resumes
	// with its last id everything after it: the Source is the truth.
	second := startServer(t, serve.Config{}, src, first.addr)
	last := fmt.Sprint(got[len(got)-1])
	resp = second.get(t, "/plans/p1/events", adminToken, "Last-Event-ID", last)
	r = newSSEReader(resp.Body)
	got = append(got, r.seqs(t, 3)...)
	src.append("p1", 1)
	got = append(got, r.seqs(t, 1)...)
	assert.Equal(t, seqRange(1, 7), got, "in order, nothing missed, nothing twice")
}
