package serve_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/serve"
)

// errorOf decodes an error answer's message.
func errorOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body.Error
}

func TestHealthzNeedsNoToken(t *testing.T) {
	ts := startServer(t, serve.Config{}, newFakeSource(), "")
	resp := ts.get(t, "/healthz", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestNoTokenIs401(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	for _, path := range []string{"/plans/p1", "/plans/p1/events"} {
		resp := ts.get(t, path, "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer"), path)
		assert.Contains(t, errorOf(t, resp), "bearer token is required")
	}
	// Another scheme is no bearer token.
	resp := ts.get(t, "/plans/p1", "", "Authorization", "Basic "+adminToken)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Zero(t, src.follows.Load(), "nothing is read for a caller without a token")
}

func TestWrongTokenIs401(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	for _, tok := range []string{"wrong-token-0123456789abcdef", adminToken + "x", adminToken[:len(adminToken)-1]} {
		resp := ts.get(t, "/plans/p1/events", tok)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
	}
	assert.Zero(t, src.follows.Load())
}

func TestRevokedTokenIs401(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "acme", 1)
	ts := startServer(t, serve.Config{}, src, "")
	require.Equal(t, http.StatusOK, ts.get(t, "/plans/p1", acmeToken).StatusCode)

	// The acme token's line is removed: once the server has read the
	// file again, the token is refused; the admin's still works.
	require.NoError(t, os.WriteFile(ts.tokens, []byte(adminToken+" admin\n"), 0o600))
	require.Eventually(t, func() bool {
		code, err := getOnce(ts, "/plans/p1", acmeToken)
		return err == nil && code == http.StatusUnauthorized
	}, patience, tick)
	assert.Equal(t, http.StatusOK, ts.get(t, "/plans/p1", adminToken).StatusCode)
}

func TestRevokedTokenEndsItsOpenStreams(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "acme", 1)
	ts := startServer(t, serve.Config{Heartbeat: 20 * time.Millisecond}, src, "")
	acme := newSSEReader(ts.get(t, "/plans/p1/events", acmeToken).Body)
	admin := newSSEReader(ts.get(t, "/plans/p1/events", adminToken).Body)
	assert.Equal(t, []int64{1}, acme.seqs(t, 1))
	assert.Equal(t, []int64{1}, admin.seqs(t, 1))

	// A stream outlives the check of its request: revoking the token
	// ends it too, at the next heartbeat; other tokens' streams go on.
	require.NoError(t, os.WriteFile(ts.tokens, []byte(adminToken+" admin\n"), 0o600))
	for {
		_, err := acme.next()
		if err != nil {
			assert.ErrorIs(t, err, io.EOF)
			break
		}
	}
	src.append("p1", 1)
	assert.Equal(t, []int64{2}, admin.seqs(t, 1))
}

func TestMalformedTokensFileRefusesEveryToken(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	require.Equal(t, http.StatusOK, ts.get(t, "/plans/p1", adminToken).StatusCode)

	// A revocation that left the file malformed must not keep the old
	// tokens alive.
	require.NoError(t, os.WriteFile(ts.tokens, []byte(adminToken+"\n"), 0o600))
	require.Eventually(t, func() bool {
		code, err := getOnce(ts, "/plans/p1", adminToken)
		return err == nil && code == http.StatusUnauthorized
	}, patience, tick)
	// Fixed, it serves again.
	require.NoError(t, os.WriteFile(ts.tokens, []byte(tokensFile), 0o600))
	require.Eventually(t, func() bool {
		code, err := getOnce(ts, "/plans/p1", adminToken)
		return err == nil && code == http.StatusOK
	}, patience, tick)
}

// getOnce GETs path with token and returns the status.
func getOnce(ts *testServer, path, token string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, ts.url+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestForeignTenantIs403(t *testing.T) {
	src := newFakeSource()
	src.add("acme-plan", "acme", 1)
	src.add("labs-plan", "acme-labs", 1)
	src.add("other-plan", "globex", 1)
	src.add("no-tenant", "", 1)
	ts := startServer(t, serve.Config{}, src, "")
	for plan, want := range map[string]int{"acme-plan": 200, "labs-plan": 200, "other-plan": 403, "no-tenant": 403} {
		assert.Equal(t, want, ts.get(t, "/plans/"+plan, acmeToken).StatusCode, plan)
		assert.Equal(t, 200, ts.get(t, "/plans/"+plan, adminToken).StatusCode, "the admin's token lists no tenant: %s", plan)
	}
	resp := ts.get(t, "/plans/other-plan/events", acmeToken)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, errorOf(t, resp), "tenant")
	assert.Zero(t, src.follows.Load(), "a foreign plan's events are never read")
}

func TestForeignOriginIs403(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 1)
	ts := startServer(t, serve.Config{AllowedOrigins: []string{"https://ops.example.com"}}, src, "")

	resp := ts.get(t, "/plans/p1/events", adminToken, "Origin", "https://evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, errorOf(t, resp), "origin https://evil.example.com is not allowed")
	resp = ts.get(t, "/plans/p1", "", "Origin", "https://ops.example.com.evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "refused before the token is looked at")

	resp = ts.get(t, "/plans/p1", adminToken, "Origin", "https://ops.example.com")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "https://ops.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	resp = ts.get(t, "/plans/p1", adminToken)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "no Origin: not a browser's cross-site request")
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))

	// A browser's preflight: allowed for the allowed origin only.
	pre := func(origin string) *http.Response {
		req, err := http.NewRequest(http.MethodOptions, ts.url+"/plans/p1/events", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Headers", "authorization")
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		r.Body.Close()
		return r
	}
	ok := pre("https://ops.example.com")
	assert.Equal(t, http.StatusNoContent, ok.StatusCode)
	assert.Contains(t, ok.Header.Get("Access-Control-Allow-Headers"), "Authorization")
	assert.Equal(t, http.StatusForbidden, pre("https://evil.example.com").StatusCode)
}

func TestUnknownPlanIs404(t *testing.T) {
	ts := startServer(t, serve.Config{}, newFakeSource(), "")
	for _, path := range []string{"/plans/nope", "/plans/nope/events"} {
		resp := ts.get(t, path, adminToken)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		assert.Equal(t, "no plan nope", errorOf(t, resp))
	}
}

func TestStateIsJSON(t *testing.T) {
	src := newFakeSource()
	src.add("p1", "", 3)
	ts := startServer(t, serve.Config{}, src, "")
	resp := ts.get(t, "/plans/p1", adminToken)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var st map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	assert.Equal(t, map[string]any{"planId": "p1", "events": 3.0, "ended": false}, st)
	assert.Equal(t, http.StatusMethodNotAllowed, postStatus(t, ts.url+"/plans/p1"))
}

// postStatus POSTs a small body to url and returns the status.
func postStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
