package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

// Tokens of the HTTP tests.
const (
	adminToken = "admin-token-0123456789abcdef"
	teamAToken = "team-a-token-0123456789abcdef"
)

// noSource is serve's Source of a server whose tests use only /mcp.
type noSource struct{}

func (noSource) Follow(context.Context, string, int64) iter.Seq2[signals.Event, error] {
	return func(func(signals.Event, error) bool) {}
}
func (noSource) State(context.Context, string) (json.RawMessage, error) {
	return nil, serve.ErrUnknownPlan
}
func (noSource) Tenant(context.Context, string) (string, error) { return "", serve.ErrUnknownPlan }

// serveMCP runs serve with the MCP handler of plans mounted at /mcp, as
// planmode serve mounts it, and returns its URL.
func serveMCP(t *testing.T, plans Plans) string {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(tokens, []byte(adminToken+" admin\n"+teamAToken+" dashboard team-a\n"), 0o600))
	callerOf := func(r *http.Request) (Caller, bool) {
		c, ok := serve.CallerOf(r.Context())
		return Caller{Identity: c.Identity, Tenants: c.Tenants}, ok
	}
	srv := serve.New(serve.Config{TokensFile: tokens, AllowedOrigins: []string{"https://ops.example.com"}}, noSource{},
		serve.WithMount(serve.Mount{Pattern: "/mcp", Handler: Handler(plans, callerOf), MaxBodyBytes: MaxBodyBytes,
			Timeout: time.Minute}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// post sends body to url as one MCP message over Streamable HTTP, with
// token (none when empty) and the headers given as name, value pairs.
func post(t *testing.T, url, token string, body []byte, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// rpc is a JSON-RPC request.
func rpc(t *testing.T, method string, params any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	return b
}

// rpcAnswer is a JSON-RPC response with a tool's result.
type rpcAnswer struct {
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func answerOf(t *testing.T, body string) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	return a
}

// TestHTTPRefusesWhatItShouldAndStaysUp sends what a careless or hostile
// client might to /mcp behind serve's checks: each is refused clearly,
// changes nothing, and the next proper call is answered.
func TestHTTPRefusesWhatItShouldAndStaysUp(t *testing.T) {
	f := newFakePlans()
	f.add("ours", "team-a")
	f.add("theirs", "team-b")
	url := serveMCP(t, f)
	status := rpc(t, "tools/call", map[string]any{"name": ToolStatus, "arguments": map[string]any{"planId": "ours"}})

	resp, _ := post(t, url, "", status)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no token")
	resp, _ = post(t, url, "wrong-token-0123456789abcdef", status)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token the file does not hold")
	resp, _ = post(t, url, adminToken, status, "Origin", "https://evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a foreign origin, token or not")
	resp, _ = post(t, url, adminToken, status, "Origin", "https://ops.example.com")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "an allowed origin")
	assert.Equal(t, "https://ops.example.com", resp.Header.Get("Access-Control-Allow-Origin"))

	huge := rpc(t, "tools/call", map[string]any{"name": ToolRefine,
		"arguments": map[string]any{"planId": "ours", "feedback": strings.Repeat("x", MaxBodyBytes)}})
	resp, body := post(t, url, adminToken, huge)
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, body)

	resp, body = post(t, url, adminToken, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`))
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "malformed JSON: %s", body)
	for _, malformed := range []string{`{"id":1,"method":"tools/list"}`, `[]`, `"x"`, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`} {
		resp, body = post(t, url, adminToken, []byte(malformed))
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", malformed, body)
		assert.NotEmpty(t, body, "%s is told why", malformed)
	}
	_, body = post(t, url, adminToken, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}`))
	a := answerOf(t, body)
	require.NotNil(t, a.Error, "params of the wrong shape: %s", body)
	assert.Equal(t, -32602, a.Error.Code)
	_, body = post(t, url, adminToken, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plan_status","arguments":"x"}}`))
	a = answerOf(t, body)
	require.NotNil(t, a.Result, "arguments that are no object are the tool's to refuse: %s", body)
	assert.True(t, a.Result.IsError)
	resp, body = post(t, url, adminToken, rpc(t, "plans/terminate", map[string]any{}))
	assert.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, resp.StatusCode, "an unknown method: %s", body)
	assert.Contains(t, body, "plans/terminate")

	_, body = post(t, url, adminToken, rpc(t, "tools/call", map[string]any{"name": "plan_terminate", "arguments": map[string]any{}}))
	a = answerOf(t, body)
	require.NotNil(t, a.Error, "an unknown tool is a JSON-RPC error: %s", body)
	assert.Contains(t, a.Error.Message, "unknown tool")

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"wrong-typed", map[string]any{"planId": "ours", "rank": "first"}, "rank"},
		{"unknown field", map[string]any{"planId": "ours", "rank": 1, "colour": "red"}, "colour"},
		{"over the bound", map[string]any{"planId": "ours", "feedback": strings.Repeat("x", signals.MaxTextBytes+1)}, "at most 4096 bytes"},
		{"another tenant's", map[string]any{"planId": "theirs", "rank": 1}, "no plan theirs"},
	} {
		_, body = post(t, url, teamAToken, rpc(t, "tools/call", map[string]any{"name": ToolSelect, "arguments": tc.args}))
		a = answerOf(t, body)
		require.NotNil(t, a.Result, "%s: a tool error, not a protocol error: %s", tc.name, body)
		assert.True(t, a.Result.IsError, "%s: %s", tc.name, body)
		assert.Contains(t, body, tc.want, tc.name)
	}
	assert.Empty(t, f.recorded(), "nothing was changed")

	_, body = post(t, url, teamAToken, rpc(t, "tools/call", map[string]any{"name": ToolSelect,
		"arguments": map[string]any{"planId": "ours", "rank": 1}}))
	a = answerOf(t, body)
	require.NotNil(t, a.Result, body)
	assert.False(t, a.Result.IsError, "the server is still up: %s", body)
	calls := f.recorded()
	require.Len(t, calls, 1)
	assert.Equal(t, "dashboard", calls[0].req.(signals.SelectOptionRequest).By, "the token's identity is the input's by")
}

// TestHTTPIsStatelessAndServesTheGoSDKClient: the SDK's client over
// Streamable HTTP with a bearer token lists the tools and calls one; no
// request needs a session another request opened.
func TestHTTPIsStatelessAndServesTheGoSDKClient(t *testing.T) {
	f := newFakePlans()
	f.add("p1", "")
	url := serveMCP(t, f)
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{adminToken}},
		DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, transport, nil)
	require.NoError(t, err)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, len(allTools))
	var st statusOutput
	ok(t, callTool(t, cs, ToolStatus, map[string]any{"planId": "p1"}), &st)
	assert.Equal(t, "p1", st.Standing.WorkflowID)

	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "no session stream to open")
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHandlerWithoutACallerIs401(t *testing.T) {
	h := Handler(newFakePlans(), func(*http.Request) (Caller, bool) { return Caller{}, false })
	srv := &http.Server{Handler: h}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	resp, _ := post(t, "http://"+ln.Addr().String(), "", rpc(t, "tools/list", map[string]any{}))
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestHandlerKeepsSessionsOnlyForHostsThatElicit: an initialize that
// declares elicitation opens a session, one that does not is answered
// without; a request naming a session this handler does not keep (or
// another caller's) is answered without it, in one JSON answer.
func TestHandlerKeepsSessionsOnlyForHostsThatElicit(t *testing.T) {
	url := serveMCP(t, newFakePlans())
	initialize := func(caps map[string]any) []byte {
		return rpc(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
			"clientInfo": map[string]any{"name": "test", "version": "v0"}})
	}
	resp, _ := post(t, url, adminToken, initialize(map[string]any{}))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(sessionHeader), "a host that does not elicit has no session")

	resp, _ = post(t, url, adminToken, initialize(map[string]any{"elicitation": map[string]any{}}))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get(sessionHeader)
	require.NotEmpty(t, id, "a host that elicits has a session")

	for _, tc := range []struct{ name, token, session string }{
		{"an unknown session", adminToken, "no-such-session"},
		{"another caller's session", teamAToken, id},
	} {
		resp, body := post(t, url, tc.token, rpc(t, "tools/list", map[string]any{}), sessionHeader, tc.session)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", tc.name, body)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), tc.name)
		assert.Contains(t, body, ToolStart, tc.name)
	}
}
