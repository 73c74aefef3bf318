package testsuite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

// jsonLines decodes watch --follow --output json: one event a line.
func jsonLines(t *testing.T, out string) []signals.Event {
	t.Helper()
	var evs []signals.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e signals.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		evs = append(evs, e)
	}
	return evs
}

// TestWatchFollowPrintsEveryEventOfAPlan starts a plan from a template
// with auto selection and follows it with `watch --follow --output json`
// from its start: every event, seq 1 to the last without a gap, a
// step-started and a step-completed for every step, the end last, exit 0.
// Followed again from K after the end, it prints K+1 first.
func TestWatchFollowPrintsEveryEventOfAPlan(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	id := "plan-follow-" + strings.ReplaceAll(pw.queue, "/", "-")
	var started struct {
		WorkflowID string `json:"workflowId"`
	}
	pw.cliJSON(t, &started, "start", "Add a health check endpoint", "--template", "feature", "--select", "auto",
		"--mode", "complete", "--workspace", pw.workspace, "--id", id)

	w := pw.cli(t, "watch", id, "--follow", "--output", "json")
	require.Equal(t, 0, w.code, w.errOut)
	evs := jsonLines(t, w.out)
	require.NotEmpty(t, evs)
	told := map[string]map[signals.EventType]bool{}
	for i, e := range evs {
		assert.Equal(t, int64(i+1), e.Seq, "event %d of %s: no gap, no duplicate", i, e.Type)
		assert.Equal(t, id, e.PlanID)
		assert.False(t, e.At.IsZero())
		if e.Step != nil {
			if told[e.Step.ID] == nil {
				told[e.Step.ID] = map[signals.EventType]bool{}
			}
			told[e.Step.ID][e.Type] = true
		}
	}
	assert.Equal(t, signals.EventPhaseChanged, evs[0].Type, "the log starts with the first phase")
	last := evs[len(evs)-1]
	require.Equal(t, signals.EventEnded, last.Type)
	assert.JSONEq(t, `"completed"`, string(fieldOf(t, last.Data, "status")))

	var res signals.Result
	pw.cliJSON(t, &res, "result", id)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	ran := 0
	for _, s := range res.Plan.Steps {
		switch s.Status {
		case plan.StepCompleted:
			ran++
			assert.True(t, told[s.ID][signals.EventStepStarted], "step %s started in the log", s.ID)
			assert.True(t, told[s.ID][signals.EventStepCompleted], "step %s completed in the log", s.ID)
		case plan.StepSkipped:
			assert.True(t, told[s.ID][signals.EventStepSkipped], "step %s skipped in the log", s.ID)
		default:
			t.Errorf("step %s ended %s", s.ID, s.Status)
		}
	}
	assert.Greater(t, ran, 2, "the template's steps ran")
	for _, typ := range []signals.EventType{signals.EventOptionsReady, signals.EventOptionSelected, signals.EventUsage,
		signals.EventReflectionDecided} {
		assert.True(t, hasType(evs, typ), "the log tells %s", typ)
	}

	k := len(evs) / 2
	again := pw.cli(t, "watch", id, "--follow", "--from", strconv.Itoa(k), "--output", "json")
	require.Equal(t, 0, again.code, again.errOut)
	rest := jsonLines(t, again.out)
	require.NotEmpty(t, rest)
	assert.Equal(t, int64(k+1), rest[0].Seq, "--from K prints K+1 first")
	assert.Equal(t, evs[k:], rest)

	human := pw.cli(t, "watch", id, "--follow", "--from", strconv.Itoa(len(evs)-1))
	require.Equal(t, 0, human.code, human.errOut)
	assert.Regexp(t, fmt.Sprintf(`^\s*%d \d\d:\d\d:\d\d ended\s+run completed\n$`, len(evs)), human.out)

	bad := pw.cli(t, "watch", id, "--follow", "--from", "-3")
	assert.Equal(t, 4, bad.code, "a negative --from is refused: %s", bad.errOut)
	assert.Contains(t, bad.errOut, "--from -3: want a seq of 0 or more")
	unknown := pw.cli(t, "watch", "no-such-plan", "--follow")
	assert.Equal(t, 3, unknown.code, "an unknown plan: %s", unknown.errOut)
}

// hasType reports whether evs has an event of type typ.
func hasType(evs []signals.Event, typ signals.EventType) bool {
	for _, e := range evs {
		if e.Type == typ {
			return true
		}
	}
	return false
}

// fieldOf is the JSON of one field of an object.
func fieldOf(t *testing.T, data json.RawMessage, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), string(data))
	return m[name]
}

// sseEvent is one event of a Server-Sent Events stream.
type sseEvent struct {
	id, event, data string
}

// readSSE reads events from an SSE body until stop says so or the body
// ends.
func readSSE(t *testing.T, resp *http.Response, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event == "" && cur.data == "" {
				continue
			}
			evs = append(evs, cur)
			if stop(cur) {
				return evs
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return evs
}

// TestServeResumesAcrossARestart follows a plan that waits for a
// selection through `planmode serve`: without a token 401; with one and
// Last-Event-ID 3 the events from 4 in order. Serve is then killed, the
// plan goes on, serve starts again on the same port, and a client
// resuming with its last id gets every event to the end: nothing missed,
// nothing twice.
func TestServeResumesAcrossARestart(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-serve-follow-" + strings.ReplaceAll(pw.queue, "/", "-")
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue), planclient.WithNamespace(pw.srv.Namespace))
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Add a health check endpoint", Template: "feature",
		Workspace: pw.workspace, Execution: signals.ExecutionPolicy{Mode: "complete"}})
	require.NoError(t, err)

	const token = "follow-token-0123456789abcdef"
	tokens := tokensFile(t, token+" ops-dashboard")
	sctx, stopServe := context.WithCancel(ctx)
	url := startServe(t, sctx, pw, tokens)

	get := func(url, lastID, tok string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		require.NoError(t, err)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	events := url + "/plans/" + id + "/events"
	assert.Equal(t, http.StatusUnauthorized, get(events, "", "").StatusCode)

	resp := get(events, "3", token)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	first := readSSE(t, resp, func(e sseEvent) bool {
		return e.event == string(signals.EventAwaitingSelection)
	})
	require.NotEmpty(t, first)
	for i, e := range first {
		assert.Equal(t, strconv.Itoa(4+i), e.id, "from seq 4, in order")
	}
	lastID := first[len(first)-1].id
	resp.Body.Close()

	stopServe() // startServe's cleanup checks it stopped cleanly
	host := strings.TrimPrefix(url, "http://")
	_, err = pc.Select(ctx, id, signals.SelectOptionRequest{Rank: 1})
	require.NoError(t, err)
	_, err = pc.Result(ctx, id)
	require.NoError(t, err)

	url2 := startServeOn(t, ctx, pw, tokens, host)
	require.Equal(t, url, url2, "serve starts again on the same port")
	rest := readSSE(t, get(events, lastID, token), func(e sseEvent) bool { return e.event == string(signals.EventEnded) })
	require.NotEmpty(t, rest)
	n, _ := strconv.Atoi(lastID)
	for i, e := range rest {
		assert.Equal(t, strconv.Itoa(n+1+i), e.id, "resumed after %s: nothing missed, nothing twice", lastID)
	}
	assert.Equal(t, string(signals.EventEnded), rest[len(rest)-1].event)
}

// TestFollowingWithTextShowsTheModelsTextAsItArrives runs a plan on a
// worker whose model calls stream and take seconds each, and follows it
// with the model's text: text arrives while a call runs, before the event
// that tells the call's usage, and it is the text the call answered. The
// text is not in the log: the log's seqs still run without a gap.
func TestFollowingWithTextShowsTheModelsTextAsItArrives(t *testing.T) {
	isolate(t)
	srv := StartDevServer(t)
	model := offline.New(offline.WithLatency(4 * time.Second))
	t.Cleanup(model.Close)
	pw := newPlanWorker(t, srv, model)
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{MaxHeartbeatThrottleInterval: planworker.HeartbeatThrottle})
	registerModel(w, llm.Config{BaseURL: model.URL(), Model: offline.DefaultModel, Stream: true}, pw.root, t.TempDir(), config.Codec{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue), planclient.WithNamespace(srv.Namespace))
	id := "plan-text-" + strings.ReplaceAll(pw.queue, "/", "-")
	steps := []plan.Step{{ID: "a", Title: "Describe the handler", Action: plan.ActionLLM,
		Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Describe the signup handler in a few sentences."}}}}
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Describe the signup handler", Workspace: pw.workspace,
		Plan: &signals.ExternalPlan{Steps: steps}})
	require.NoError(t, err)

	var logged []signals.Event
	text := map[string]string{} // by phase
	textBefore := map[string]bool{}
	for e, err := range pc.Events(ctx, id, 0, planclient.WithModelText(200*time.Millisecond)) {
		require.NoError(t, err)
		if e.Type != signals.EventModelText {
			logged = append(logged, e)
			if e.Type == signals.EventUsage {
				var u struct{ Phase string }
				require.NoError(t, json.Unmarshal(e.Data, &u))
				textBefore[u.Phase] = text[u.Phase] != ""
			}
			continue
		}
		var d signals.ModelTextDelta
		require.NoError(t, json.Unmarshal(e.Data, &d))
		if d.Restarted {
			text[d.Phase] = ""
		}
		text[d.Phase] += d.Text
	}
	for i, e := range logged {
		require.Equal(t, int64(i+1), e.Seq, "the text is not in the log")
	}
	require.NotEmpty(t, text, "the text of running calls was seen")
	seen := false
	for phase, before := range textBefore {
		seen = seen || before
		assert.True(t, before || text[phase] == "", "the text of %s came before its usage", phase)
	}
	assert.True(t, seen, "text arrived while a call ran: %v", textBefore)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	if got := text["execute"]; got != "" {
		out := res.Plan.StepByID("a").Result.Output
		n := min(len(got), len(out), 40)
		assert.Equal(t, out[:n], got[:n], "the streamed text is the step's answer")
	}
}

// TestAFollowerSeesACallStartOverAfterItsWorkerDies follows a plan with
// the model's text while a worker process streams a slow model call, kills
// that process with SIGKILL once the call's text has reached the server,
// and starts another: the follower saw the first attempt's text, then the
// same call start over at its second attempt (restarted) on the new
// worker, and the log itself went on without a gap to the plan's end.
func TestAFollowerSeesACallStartOverAfterItsWorkerDies(t *testing.T) {
	t.Parallel()
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{
		config.KeyOfflineLatency: "4s",
		config.KeyStickyTimeout:  "1s",
	})
	first := startWorkerProcess(t, bin, env)
	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue), planclient.WithNamespace(srv.Namespace))
	id := "plan-text-failover-" + queue
	steps := []plan.Step{
		{ID: "a", Title: "Describe the handler", Action: plan.ActionLLM,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Describe the signup handler."}}},
		{ID: "b", Title: "Describe its tests", Action: plan.ActionLLM, DependsOn: []string{"a"},
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Describe the signup handler's tests."}}},
	}
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: "Describe the signup handler", Workspace: workspace,
		Plan: &signals.ExternalPlan{Steps: steps}, Execution: signals.ExecutionPolicy{HeartbeatTimeout: plan.Duration(failoverHeartbeat)}})
	require.NoError(t, err)

	type seen struct {
		logged []signals.Event
		deltas []signals.ModelTextDelta
		err    error
	}
	followed := make(chan seen, 1)
	go func() {
		var s seen
		for e, err := range pc.Events(ctx, id, 0, planclient.WithModelText(100*time.Millisecond)) {
			if err != nil {
				s.err = err
				break
			}
			if e.Type != signals.EventModelText {
				s.logged = append(s.logged, e)
				continue
			}
			var d signals.ModelTextDelta
			if err := json.Unmarshal(e.Data, &d); err == nil {
				s.deltas = append(s.deltas, d)
			}
		}
		followed <- s
	}()

	inFlight := awaitRunningActivity(ctx, t, pc, id)
	require.Eventually(t, func() bool {
		calls, err := pc.RunningText(ctx, id)
		return err == nil && len(calls) == 1 && calls[0].ActivityID == inFlight.GetActivityId() && calls[0].Text.Bytes > 0
	}, loadedWait, 20*time.Millisecond, "the running call's text reached the server")
	first.kill()
	require.True(t, errKilled(first.err), "the first worker died of SIGKILL: %v", first.err)
	second := startWorkerProcess(t, bin, env)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", second.out)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	s := <-followed
	require.NoError(t, s.err)
	for i, e := range s.logged {
		require.Equal(t, int64(i+1), e.Seq, "the log went on without a gap")
	}
	require.Equal(t, signals.EventEnded, s.logged[len(s.logged)-1].Type)
	var before, restarted bool
	for _, d := range s.deltas {
		if d.ActivityID != inFlight.GetActivityId() {
			continue
		}
		switch {
		case d.Attempt == 1 && d.Text != "":
			before = true
		case d.Attempt == 2 && d.Restarted:
			restarted = true
		}
	}
	assert.True(t, before, "the follower saw the first attempt's text")
	assert.True(t, restarted, "the follower saw the call start over at its second attempt")
}
