package serve_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

// Tokens of the tests' tokens file.
const (
	adminToken = "admin-token-0123456789abcdef"
	acmeToken  = "acme-token-0123456789abcdef"
	tokensFile = adminToken + " admin\n" +
		"# a comment, then a blank line\n\n" +
		acmeToken + " acme-bot acme,acme-labs\n"
)

// patience bounds every wait for a condition: long enough for a loaded
// 2-core machine, and only ever reached when the condition never holds.
const patience = 30 * time.Second

// tick is how often a waited condition is looked at.
const tick = 10 * time.Millisecond

// testServer is a server listening on a random loopback port.
type testServer struct {
	*serve.Server
	url    string
	addr   string
	tokens string
	stop   func()
}

// writeTokens writes a tokens file into dir and returns its path.
func writeTokens(t *testing.T, dir, content string) string {
	t.Helper()
	path := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// startServer serves src with cfg (its tokens file the tests' unless
// set) on 127.0.0.1 at a random port, or at addr when given.
func startServer(t *testing.T, cfg serve.Config, src serve.Source, addr string) *testServer {
	t.Helper()
	if cfg.TokensFile == "" {
		cfg.TokensFile = writeTokens(t, t.TempDir(), tokensFile)
	}
	if cfg.TokensCheck == 0 {
		cfg.TokensCheck = 10 * time.Millisecond
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	s := serve.New(cfg, src)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	ts := &testServer{Server: s, url: "http://" + ln.Addr().String(), addr: ln.Addr().String(), tokens: cfg.TokensFile}
	stopped := false
	ts.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		require.NoError(t, <-done)
	}
	t.Cleanup(ts.stop)
	return ts
}

// get sends a GET of path with token (none when empty) and the headers
// given as name, value pairs.
func (ts *testServer) get(t *testing.T, path, token string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.url+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseMessage is one thing an event stream said: an event or a comment.
type sseMessage struct {
	id, event, data, comment string
}

// sseReader reads an event stream.
type sseReader struct{ r *bufio.Reader }

func newSSEReader(body io.Reader) *sseReader { return &sseReader{r: bufio.NewReader(body)} }

// next reads the next message; io.EOF when the stream ended.
func (s *sseReader) next() (sseMessage, error) {
	var m sseMessage
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return m, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if m != (sseMessage{}) {
				return m, nil
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			m.comment = value
		case "id":
			m.id = value
		case "event":
			m.event = value
		case "data":
			m.data = value
		}
	}
}

// nextEvent reads messages up to the next event, skipping comments.
func (s *sseReader) nextEvent(t *testing.T) sseMessage {
	t.Helper()
	for {
		m, err := s.next()
		require.NoError(t, err)
		if m.comment == "" {
			return m
		}
	}
}

// seqs reads n events and returns their ids as numbers.
func (s *sseReader) seqs(t *testing.T, n int) []int64 {
	t.Helper()
	var out []int64
	for range n {
		m := s.nextEvent(t)
		id, err := strconv.ParseInt(m.id, 10, 64)
		require.NoError(t, err, "id %q", m.id)
		out = append(out, id)
	}
	return out
}

// seqRange is from..to.
func seqRange(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}
