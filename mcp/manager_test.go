package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListsToolsWithHintsAndDigest(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "read_graph", &sdk.ToolAnnotations{ReadOnlyHint: true}, nil)
		textTool(s, "create", &sdk.ToolAnnotations{IdempotentHint: true}, nil)
		textTool(s, "delete", nil, nil)
	})
	m := startWith(t, inMemory(t, s), Server{Name: "memory"})
	cat := m.Catalogue()
	require.Empty(t, cat.Problems)
	require.Len(t, cat.Tools, 3)
	assert.Equal(t, digest(cat.Tools), cat.Digest)
	assert.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}}}`, string(cat.Tools[0].Parameters))
	cat.Tools[0].Parameters = nil
	assert.Equal(t, Tool{Name: "mcp__memory__create", Server: "memory", RealName: "create", Description: "the create tool",
		Idempotent: true}, cat.Tools[0])
	assert.Equal(t, "mcp__memory__delete", cat.Tools[1].Name)
	assert.False(t, cat.Tools[1].ReadOnly || cat.Tools[1].Idempotent)
	assert.True(t, cat.Tools[2].ReadOnly && cat.Tools[2].Idempotent, "read-only implies idempotent")
	assert.True(t, strings.HasPrefix(cat.Digest, "sha256:"))

	allow := startWith(t, inMemory(t, s), Server{Name: "memory", Tools: []string{"read_graph", "missing"}})
	cat2 := allow.Catalogue()
	require.Len(t, cat2.Tools, 1)
	assert.Equal(t, "mcp__memory__read_graph", cat2.Tools[0].Name)
	assert.NotEqual(t, cat.Digest, cat2.Digest, "another tool set, another digest")
	require.Len(t, cat2.Problems, 1)
	assert.Equal(t, "missing", cat2.Problems[0].Tool)
}

func TestCallKeepsErrorAndStructuredContentApart(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "echo", nil, func(a map[string]any) *sdk.CallToolResult { return text(fmt.Sprint("got ", a["q"])) })
		textTool(s, "fail", nil, func(map[string]any) *sdk.CallToolResult {
			r := text("no such ticket")
			r.IsError = true
			return r
		})
		textTool(s, "structured", nil, func(map[string]any) *sdk.CallToolResult {
			r := text(`{"n":3}`)
			r.StructuredContent = map[string]any{"n": 3}
			return r
		})
	})
	m := startWith(t, inMemory(t, s), Server{Name: "s"})
	ctx := context.Background()

	res, err := m.Call(ctx, "mcp__s__echo", json.RawMessage(`{"q":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, Result{Text: "got hi"}, res)

	res, err = m.Call(ctx, "mcp__s__fail", nil)
	require.NoError(t, err)
	assert.Equal(t, Result{Text: "no such ticket", IsError: true}, res)

	res, err = m.Call(ctx, "mcp__s__structured", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":3}`, string(res.Structured))
	assert.False(t, res.IsError)

	res, err = m.Call(ctx, "mcp__s__echo", json.RawMessage(`[1]`))
	require.NoError(t, err)
	assert.True(t, res.IsError, "arguments that are not an object never reach the server")

	_, err = m.Call(ctx, "mcp__s__nothing", nil)
	assert.ErrorIs(t, err, ErrUnknownTool)
}

func TestLargeResultArrivesWhole(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	s := testServer(func(s *sdk.Server) {
		textTool(s, "big", &sdk.ToolAnnotations{ReadOnlyHint: true}, func(map[string]any) *sdk.CallToolResult { return text(big) })
	})
	m := startWith(t, inMemory(t, s), Server{Name: "s"})
	res, err := m.Call(context.Background(), "mcp__s__big", nil)
	require.NoError(t, err)
	assert.Len(t, res.Text, len(big), "the manager returns the whole; the activity bounds what history keeps")
}

func TestTooManyToolsAreCapped(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		for i := range 500 {
			textTool(s, fmt.Sprintf("t%03d", i), nil, nil)
		}
	})
	m := startWith(t, inMemory(t, s), Server{Name: "many"})
	cat := m.Catalogue()
	assert.Len(t, cat.Tools, MaxToolsPerServer)
	assert.Equal(t, "mcp__many__t000", cat.Tools[0].Name)
	require.Len(t, cat.Problems, 1)
	assert.Contains(t, cat.Problems[0].Reason, "offers 500 tools; only the first 200")
	assert.Contains(t, cat.Problems[0].Reason, "mcp.servers.many.tools")
}

func TestSchemasThatAreNotJSONSchemaAreRefused(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "good", nil, nil)
		add := func(name, schema string) {
			s.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(schema)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil })
		}
		add("props_number", `{"type":"object","properties":5}`)
		add("huge", `{"type":"object","description":"`+strings.Repeat("d", 17<<10)+`"}`)
	})
	m := startWith(t, inMemory(t, s), Server{Name: "s"})
	cat := m.Catalogue()
	require.Len(t, cat.Tools, 1)
	assert.Equal(t, "mcp__s__good", cat.Tools[0].Name)
	reasons := map[string]string{}
	for _, p := range cat.Problems {
		reasons[p.Tool] = p.Reason
	}
	assert.Contains(t, reasons["props_number"], "not JSON Schema")
	assert.Contains(t, reasons["huge"], "more than the 16384")
	_, err := m.Call(context.Background(), "mcp__s__props_number", nil)
	assert.ErrorIs(t, err, ErrUnknownTool)
	assert.ErrorContains(t, err, "not JSON Schema", "a call says why the tool is absent")
}

func TestNamesThatCollideAfterSanitisingAreLeftOut(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "a.b", nil, nil)
		textTool(s, "a_b", nil, nil)
		// A server's tool named like a built-in is offered under its
		// prefixed name; the built-in keeps its own.
		textTool(s, "read_file", nil, nil)
	})
	m := startWith(t, inMemory(t, s), Server{Name: "s"})
	cat := m.Catalogue()
	require.Len(t, cat.Tools, 1)
	assert.Equal(t, "mcp__s__read_file", cat.Tools[0].Name)
	assert.Len(t, cat.Problems, 2)
	for _, p := range cat.Problems {
		assert.Contains(t, p.Reason, "mcp__s__a_b is also another tool's")
	}
}

func TestPublicNames(t *testing.T) {
	assert.Equal(t, "mcp__git_hub__create_issue", PublicName("git.hub", "create issue"))
	long := PublicName("server", strings.Repeat("very_long_tool_name_", 5)+"a")
	other := PublicName("server", strings.Repeat("very_long_tool_name_", 5)+"b")
	assert.Len(t, long, 64)
	assert.NotEqual(t, long, other, "cut names keep a hash of the whole")
	assert.Regexp(t, `^[A-Za-z0-9_-]{1,64}$`, long)
}

func TestServerThatHangsTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := testServer(func(s *sdk.Server) {
		s.AddTool(&sdk.Tool{Name: "hang", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return text("late"), nil
			})
	})
	m := startWith(t, inMemory(t, s), Server{Name: "s", Timeout: 100 * time.Millisecond})
	_, err := m.Call(context.Background(), "mcp__s__hang", nil)
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.ErrorContains(t, err, "no answer within 100ms (mcp.servers.s.timeout)")

	// A server that never answers the handshake is left out in time.
	silent := rawPeer(func(string, io.Writer) {})
	start := time.Now()
	m2 := start2(t, silent, 200*time.Millisecond)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.Len(t, m2.Catalogue().Problems, 1)
	assert.Contains(t, m2.Catalogue().Problems[0].Reason, "connect: no answer within 200ms")
}

func start2(t *testing.T, dial func(Server) (sdk.Transport, error), timeout time.Duration) *Manager {
	m := start(context.Background(), Config{Servers: []Server{{Name: "s"}}, ConnectTimeout: timeout}, dial)
	t.Cleanup(func() { m.Close() })
	return m
}

func TestServerThatPrintsGarbageIsReported(t *testing.T) {
	garbage := rawPeer(func(_ string, w io.Writer) { fmt.Fprintln(w, "Server listening on port 3000!") })
	m := start2(t, garbage, 2*time.Second)
	cat := m.Catalogue()
	assert.Empty(t, cat.Tools)
	require.Len(t, cat.Problems, 1)
	assert.Equal(t, "s", cat.Problems[0].Server)
	assert.Contains(t, cat.Problems[0].Reason, "connect")
	_, err := m.Call(context.Background(), "mcp__s__anything", nil)
	assert.ErrorIs(t, err, ErrUnknownTool)
	assert.ErrorContains(t, err, "server s is unavailable: connect")
}

func TestCrashMidCallIsOutcomeUnknownThenReconnects(t *testing.T) {
	var serverEnd atomic.Pointer[net.Conn]
	s := testServer(func(s *sdk.Server) {
		s.AddTool(&sdk.Tool{Name: "crash", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				(*serverEnd.Load()).Close() // the process is gone
				return text("never seen"), nil
			})
		textTool(s, "ok", nil, func(map[string]any) *sdk.CallToolResult { return text("fine") })
	})
	dial := func(Server) (sdk.Transport, error) {
		c, p := net.Pipe()
		serverEnd.Store(&p)
		if _, err := s.Connect(context.Background(), &sdk.IOTransport{Reader: p, Writer: p}, nil); err != nil {
			return nil, err
		}
		return &sdk.IOTransport{Reader: c, Writer: c}, nil
	}
	m := startWith(t, dial, Server{Name: "s", Timeout: 10 * time.Second})
	_, err := m.Call(context.Background(), "mcp__s__crash", nil)
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	res, err := m.Call(context.Background(), "mcp__s__ok", nil)
	require.NoError(t, err, "the next call reconnects")
	assert.Equal(t, "fine", res.Text)
}

// httpServer serves s over Streamable HTTP on loopback.
func httpServer(t *testing.T, s *sdk.Server) *httptest.Server {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamableHTTPWithHeadersFromFiles(t *testing.T) {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "echo", nil, func(a map[string]any) *sdk.CallToolResult { return text(fmt.Sprint(a["q"])) })
	})
	inner := httpServer(t, s)
	var auth []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		inner.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	token := t.TempDir() + "/token"
	require.NoError(t, writeFile(token, "Bearer s3cret\n"))
	cfg := Config{AllowedURLs: []string{front.URL + "/"}, ConnectTimeout: 5 * time.Second,
		Servers: []Server{{Name: "web", URL: front.URL + "/mcp", HeadersFiles: map[string]string{"Authorization": token}}}}
	m := Start(context.Background(), cfg)
	t.Cleanup(func() { m.Close() })
	require.Empty(t, m.Catalogue().Problems)
	res, err := m.Call(context.Background(), "mcp__web__echo", json.RawMessage(`{"q":"over http"}`))
	require.NoError(t, err)
	assert.Equal(t, "over http", res.Text)
	assert.NotEmpty(t, auth)

	// Without the header file's token the server refuses, and says so.
	cfg.Servers[0].HeadersFiles = nil
	m2 := Start(context.Background(), cfg)
	t.Cleanup(func() { m2.Close() })
	require.Len(t, m2.Catalogue().Problems, 1)
	assert.NotContains(t, m2.Catalogue().Problems[0].Reason, "s3cret")
}

func TestHTTPRedirectElsewhereIsRefused(t *testing.T) {
	s := testServer(func(s *sdk.Server) { textTool(s, "echo", nil, nil) })
	elsewhere := httpServer(t, s)
	redirector := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/mcp", http.StatusTemporaryRedirect))
	t.Cleanup(redirector.Close)
	m := Start(context.Background(), Config{AllowedURLs: []string{redirector.URL + "/"}, ConnectTimeout: 5 * time.Second,
		Servers: []Server{{Name: "web", URL: redirector.URL + "/mcp"}}})
	t.Cleanup(func() { m.Close() })
	cat := m.Catalogue()
	assert.Empty(t, cat.Tools)
	require.Len(t, cat.Problems, 1)
	assert.Contains(t, cat.Problems[0].Reason, "not under mcp.allowedURLs")

	notAllowed := Start(context.Background(), Config{Servers: []Server{{Name: "web", URL: elsewhere.URL + "/mcp"}}})
	t.Cleanup(func() { notAllowed.Close() })
	require.Len(t, notAllowed.Catalogue().Problems, 1)
	assert.Contains(t, notAllowed.Catalogue().Problems[0].Reason, "is not under mcp.allowedURLs")
}

func TestURLAllowed(t *testing.T) {
	allowed := []string{"https://mcp.example.com/v1/", "http://127.0.0.1:8080/mcp"}
	assert.True(t, URLAllowed("https://mcp.example.com/v1/tools", allowed))
	assert.True(t, URLAllowed("http://127.0.0.1:8080/mcp", allowed))
	assert.False(t, URLAllowed("https://mcp.example.com/v1/../admin", allowed))
	assert.False(t, URLAllowed("https://mcp.example.com.evil/v1/x", allowed))
	assert.False(t, URLAllowed("https://user:pw@mcp.example.com/v1/x", allowed))
	assert.False(t, URLAllowed("http://127.0.0.1:8080/mcp2", allowed))
}

func TestNilManagerOffersNothing(t *testing.T) {
	var m *Manager
	assert.Empty(t, m.Catalogue().Tools)
	_, err := m.Call(context.Background(), "mcp__x__y", nil)
	assert.True(t, errors.Is(err, ErrUnknownTool))
	assert.NoError(t, m.Close())
}

// TestCloseDoesNotWaitForAServerThatHoldsTheSessionEnd: an HTTP server
// that never answers the end of the session (its DELETE) does not hold
// Close past closeTimeout, which says which server it gave up on.
func TestCloseDoesNotWaitForAServerThatHoldsTheSessionEnd(t *testing.T) {
	release := make(chan struct{})
	var deleting atomic.Bool
	s := testServer(func(s *sdk.Server) {
		textTool(s, "echo", nil, func(map[string]any) *sdk.CallToolResult { return text("hi") })
	})
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deleting.Store(true)
			<-release
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	old := closeTimeout
	closeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { closeTimeout = old })

	m := Start(context.Background(), Config{AllowedURLs: []string{srv.URL + "/"}, ConnectTimeout: 5 * time.Second,
		Servers: []Server{{Name: "stuck", URL: srv.URL + "/mcp"}}})
	require.Empty(t, m.Catalogue().Problems)
	start := time.Now()
	err := m.Close()
	assert.Less(t, time.Since(start), 3*time.Second, "Close gave up on the server")
	assert.ErrorContains(t, err, "mcp server stuck: not closed within 200ms")
	assert.True(t, deleting.Load(), "the session's end reached the server and was held there")
}
