package testsuite

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/starter/cli"
)

// TestServeAnswersPlansByTenant runs `planmode serve` against a dev
// server: a plan's state is what show prints, a token limited to a tenant
// sees that tenant's plans only, an unknown plan is 404, and the events of
// a plan stream from the first to its end.
func TestServeAnswersPlansByTenant(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	steps := []plan.Step{{ID: "a", Title: "A", Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "say a"}}}}
	ids := map[string]string{"team-a": "plan-serve-a-" + pw.queue, "team-b": "plan-serve-b-" + pw.queue}
	for tenant, id := range ids {
		_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "One step for " + tenant,
			Tenant: tenant, Plan: &signals.ExternalPlan{Steps: steps}})
		require.NoError(t, err)
	}

	const admin, teamA = "admin-token-0123456789abcdef", "team-a-token-0123456789abcdef"
	tokens := tokensFile(t, admin+" admin", teamA+" dashboard team-a")
	url := startServe(t, ctx, pw, tokens)

	get := func(path, token string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := get("/plans/"+ids["team-a"], teamA)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var st planState
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	assert.Equal(t, ids["team-a"], st.WorkflowID)
	assert.Equal(t, http.StatusForbidden, get("/plans/"+ids["team-b"], teamA).StatusCode, "another tenant's plan")
	assert.Equal(t, http.StatusOK, get("/plans/"+ids["team-b"], admin).StatusCode, "a token without tenants sees every plan")
	assert.Equal(t, http.StatusNotFound, get("/plans/no-such-plan", admin).StatusCode)
	assert.Equal(t, http.StatusUnauthorized, get("/plans/"+ids["team-a"], "wrong-token-0123456789abcdef").StatusCode)

	events := get("/plans/"+ids["team-a"]+"/events", teamA)
	require.Equal(t, http.StatusOK, events.StatusCode)
	evs := readSSE(t, events, func(e sseEvent) bool { return e.event == string(signals.EventEnded) })
	require.NotEmpty(t, evs)
	assert.Equal(t, "1", evs[0].id, "from the start")
	assert.Equal(t, string(signals.EventEnded), evs[len(evs)-1].event, "the plan's log ends with its end")
	assert.Equal(t, http.StatusForbidden, get("/plans/"+ids["team-b"]+"/events", teamA).StatusCode)
}

// tokensFile writes a tokens file of lines (TOKEN IDENTITY [TENANT,...])
// and returns its path.
func tokensFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	return path
}

// startServe runs `planmode serve` on a free loopback port against pw's
// server until ctx or the test ends, and returns its URL.
func startServe(t *testing.T, ctx context.Context, pw *planWorker, tokens string) string {
	t.Helper()
	return startServeOn(t, ctx, pw, tokens, "127.0.0.1:0")
}

// startServeOn is startServe listening on addr.
func startServeOn(t *testing.T, ctx context.Context, pw *planWorker, tokens, addr string) string {
	t.Helper()
	ctx, stop := context.WithCancel(ctx)
	pr, out := io.Pipe()
	var errOut strings.Builder
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(ctx, []string{"serve", "--listen", addr, "--tokens-file", tokens,
			"--address", pw.srv.Address(), "--namespace", pw.srv.Namespace, "--task-queue", pw.queue},
			strings.NewReader(""), out, &errOut)
		out.Close()
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "serve announces itself")
	url, ok := strings.CutPrefix(lines.Text(), "planmode serve listening on ")
	require.True(t, ok, lines.Text())
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() {
		stop()
		assert.Equal(t, 0, <-code, "serve stops cleanly when interrupted")
	})
	return url
}
