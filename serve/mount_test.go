package serve_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

// recorder is a mounted handler that says what it saw: the caller the
// server put in the request's context and the body it could read.
type recorder struct {
	mu      sync.Mutex
	callers []serve.Caller
	bodies  []string
	readErr error
	// wait is how long it waits before it answers.
	wait time.Duration
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, ok := serve.CallerOf(r.Context())
	b, err := io.ReadAll(r.Body)
	h.mu.Lock()
	if ok {
		h.callers = append(h.callers, c)
	}
	h.bodies = append(h.bodies, string(b))
	h.readErr = err
	h.mu.Unlock()
	time.Sleep(h.wait)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"ok":true}`))
}

func (h *recorder) seen() ([]serve.Caller, []string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]serve.Caller(nil), h.callers...), append([]string(nil), h.bodies...), h.readErr
}

// startMounted serves src with cfg and m mounted, its tokens file the
// tests', on a random loopback port, and returns its URL.
func startMounted(t *testing.T, cfg serve.Config, m serve.Mount) string {
	t.Helper()
	if cfg.TokensFile == "" {
		cfg.TokensFile = writeTokens(t, t.TempDir(), tokensFile)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := serve.New(cfg, newFakeSource(), serve.WithMount(m))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String()
}

// send sends method to url with body, token (none when empty) and the
// headers given as name, value pairs.
func send(t *testing.T, method, url, token string, body io.Reader, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
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

func TestMountIsBehindTheTokenAndTheOriginAndGetsTheCaller(t *testing.T) {
	h := &recorder{}
	url := startMounted(t, serve.Config{AllowedOrigins: []string{"https://ops.example.com"}},
		serve.Mount{Pattern: "/mcp", Handler: h, MaxBodyBytes: 64})

	resp := send(t, http.MethodPost, url+"/mcp", "", strings.NewReader("{}"))
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no token")
	assert.Contains(t, errorOf(t, resp), "bearer token is required")
	resp = send(t, http.MethodPost, url+"/mcp", "wrong-token-0123456789abcdef", strings.NewReader("{}"))
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token the file does not hold")
	resp = send(t, http.MethodPost, url+"/mcp", adminToken, strings.NewReader("{}"), "Origin", "https://evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a foreign origin")
	callers, _, _ := h.seen()
	assert.Empty(t, callers, "the handler saw none of them")

	resp = send(t, http.MethodPost, url+"/mcp", acmeToken, strings.NewReader(`{"a":1}`), "Origin", "https://ops.example.com")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "https://ops.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	callers, bodies, _ := h.seen()
	require.Len(t, callers, 1)
	assert.Equal(t, serve.Caller{Identity: "acme-bot", Tenants: []string{"acme", "acme-labs"}}, callers[0])
	assert.Equal(t, []string{`{"a":1}`}, bodies)

	resp = send(t, http.MethodOptions, url+"/mcp", "", nil, "Origin", "https://ops.example.com",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "an allowed origin's preflight")
	assert.Equal(t, "POST", resp.Header.Get("Access-Control-Allow-Methods"))
	assert.Equal(t, "authorization, content-type", resp.Header.Get("Access-Control-Allow-Headers"))
	resp = send(t, http.MethodOptions, url+"/mcp", "", nil, "Origin", "https://evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a foreign origin's preflight")

	resp = send(t, http.MethodGet, url+"/plans/p1", "", nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the server's own routes are as they were")
	resp = send(t, http.MethodGet, url+"/healthz", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestMountBoundsTheBody(t *testing.T) {
	h := &recorder{}
	url := startMounted(t, serve.Config{}, serve.Mount{Pattern: "/mcp", Handler: h, MaxBodyBytes: 64})

	resp := send(t, http.MethodPost, url+"/mcp", adminToken, strings.NewReader(strings.Repeat("x", 65)))
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "a body declared over the bound")
	assert.Contains(t, errorOf(t, resp), "at most 64")
	_, bodies, _ := h.seen()
	assert.Empty(t, bodies, "the handler never ran")

	// A body that does not say its length is cut at the bound.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(strings.Repeat("y", 100)))
		_ = pw.Close()
	}()
	send(t, http.MethodPost, url+"/mcp", adminToken, pr)
	_, bodies, readErr := h.seen()
	require.Len(t, bodies, 1)
	assert.Len(t, bodies[0], 64, "no more than the bound is read")
	var tooLarge *http.MaxBytesError
	assert.True(t, errors.As(readErr, &tooLarge), "the handler is told: %v", readErr)

	resp = send(t, http.MethodPost, url+"/mcp", adminToken, strings.NewReader("{}"))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the server is still up")
}

func TestMountAnswersMayTakeItsTimeoutNotTheWriteTimeout(t *testing.T) {
	h := &recorder{wait: 300 * time.Millisecond}
	url := startMounted(t, serve.Config{WriteTimeout: 100 * time.Millisecond},
		serve.Mount{Pattern: "/mcp", Handler: h, Timeout: 5 * time.Second})
	resp := send(t, http.MethodPost, url+"/mcp", adminToken, strings.NewReader("{}"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err, "an answer that took longer than the server's write timeout arrives whole")
	assert.Equal(t, `{"ok":true}`, string(b))
}

func TestMountCountsAgainstTheConnectionBound(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	url := startMounted(t, serve.Config{MaxConnections: 1}, serve.Mount{Pattern: "/mcp", Handler: h})
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-entered:
	case <-time.After(patience):
		t.Fatal("the first request never reached the handler")
	}
	resp := send(t, http.MethodPost, url+"/mcp", adminToken, strings.NewReader("{}"))
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "past maxConnections")
	close(release)
}
