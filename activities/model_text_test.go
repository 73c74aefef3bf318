package activities

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	sdktest "go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// streamedReply is one answer of a streamingLLM: its content in the
// deltas it arrives in, and tool calls.
type streamedReply struct {
	deltas []string
	calls  []ToolCall
}

// streamingLLM is an LLM that streams its scripted replies: it hands each
// delta to the request's OnText, when there is one, and records whether
// each request asked for the text. When the script runs out it answers
// "{}".
type streamingLLM struct {
	mu       sync.Mutex
	replies  []streamedReply
	streamed []bool
}

// Complete streams the next scripted reply.
func (s *streamingLLM) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	s.streamed = append(s.streamed, req.OnText != nil)
	r := streamedReply{deltas: []string{"{}"}}
	if len(s.replies) > 0 {
		r, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	var content strings.Builder
	for _, d := range r.deltas {
		content.WriteString(d)
		if req.OnText != nil {
			req.OnText(d)
		}
	}
	return llm.Response{Content: content.String(), ToolCalls: r.calls, Model: "gpt-4o",
		Usage: plan.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}, nil
}

// asked returns, per request so far, whether it asked for the text.
func (s *streamingLLM) asked() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]bool(nil), s.streamed...)
}

// heartbeats records every heartbeat an activity records, before the SDK
// throttles them, as a worker interceptor.
type heartbeats struct {
	interceptor.WorkerInterceptorBase
	mu      sync.Mutex
	details [][]any
}

func (h *heartbeats) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	in := &heartbeatsIn{h: h}
	in.Next = next
	return in
}

type heartbeatsIn struct {
	interceptor.ActivityInboundInterceptorBase
	h *heartbeats
}

func (in *heartbeatsIn) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	out := &heartbeatsOut{h: in.h}
	out.Next = outbound
	return in.Next.Init(out)
}

type heartbeatsOut struct {
	interceptor.ActivityOutboundInterceptorBase
	h *heartbeats
}

func (out *heartbeatsOut) RecordHeartbeat(ctx context.Context, details ...any) {
	out.h.mu.Lock()
	out.h.details = append(out.h.details, details)
	out.h.mu.Unlock()
	out.Next.RecordHeartbeat(ctx, details...)
}

// texts decodes every heartbeat recorded, through the default data
// converter as the server receives them, as a signals.ModelText; ok says
// whether each one is.
func (h *heartbeats) texts(t *testing.T) (texts []signals.ModelText, ok []bool) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	dc := converter.GetDefaultDataConverter()
	for _, d := range h.details {
		p, err := dc.ToPayloads(d...)
		require.NoError(t, err)
		var mt signals.ModelText
		err = dc.FromPayloads(p, &mt)
		texts = append(texts, mt)
		ok = append(ok, err == nil && mt.Phase != "")
	}
	return texts, ok
}

// activityEnv returns a test activity environment whose heartbeats h
// records, and the channel the heartbeats the SDK sends on arrive on.
func activityEnv(h *heartbeats) (*sdktest.TestActivityEnvironment, <-chan converter.EncodedValues) {
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{h}})
	sent := make(chan converter.EncodedValues, 100)
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) { sent <- details })
	return env, sent
}

func TestAStepsModelCallHeartbeatsItsText(t *testing.T) {
	deltas := []string{"The answer ", "is forty-two", " — ünïcode ", "✓."}
	whole := strings.Join(deltas, "")
	model := &streamingLLM{replies: []streamedReply{{deltas: deltas}}}
	a := worker{LLM: model, LLMConfig: llm.Config{Stream: true}}.set()
	h := &heartbeats{}
	env, sent := activityEnv(h)
	env.RegisterActivity(a.ExecuteLLMStep)

	val, err := env.ExecuteActivity(a.ExecuteLLMStep, llmStepInput())
	require.NoError(t, err)
	var res plan.StepResult
	require.NoError(t, val.Get(&res))
	assert.Equal(t, whole, res.Output, "the reply is the same")
	assert.Equal(t, []bool{true}, model.asked())

	texts, ok := h.texts(t)
	require.GreaterOrEqual(t, len(texts), 1+len(deltas), "one heartbeat as the call begins, one per delta")
	assert.NotContains(t, ok, false, "every heartbeat is the text")
	assert.Equal(t, signals.ModelText{Phase: PhaseExecute, StepID: "s1"}, texts[0])
	assert.Equal(t, signals.ModelText{Phase: PhaseExecute, StepID: "s1", Bytes: int64(len(whole)), Text: whole},
		texts[len(texts)-1])

	select {
	case first := <-sent:
		var mt signals.ModelText
		require.NoError(t, first.Get(&mt))
		assert.Equal(t, signals.ModelText{Phase: PhaseExecute, StepID: "s1"}, mt)
	default:
		t.Fatal("the SDK sends the first heartbeat at once, the others when its throttle allows: none was sent")
	}
}

func TestAStepStreamsThroughTheAdapter(t *testing.T) {
	srv := offline.New()
	t.Cleanup(srv.Close)
	whole := strings.Repeat("Déjà vu — the answer is ✓ 42. ", 20)
	srv.Enqueue(PhaseExecute, offline.Reply{Content: whole})
	cfg := llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: offline.DefaultModel, Stream: true}
	model, err := openai.New(cfg)
	require.NoError(t, err)
	a := worker{LLM: model, LLMConfig: cfg}.set()
	h := &heartbeats{}
	env, _ := activityEnv(h)
	env.RegisterActivity(a.ExecuteLLMStep)

	val, err := env.ExecuteActivity(a.ExecuteLLMStep, llmStepInput())
	require.NoError(t, err)
	var res plan.StepResult
	require.NoError(t, val.Get(&res))
	assert.Equal(t, whole, res.Output)
	require.Len(t, srv.Requests(), 1)
	assert.True(t, srv.Requests()[0].Request.Stream)

	texts, ok := h.texts(t)
	assert.NotContains(t, ok, false)
	assert.Greater(t, len(texts), 2, "the text arrives in pieces")
	assert.Equal(t, signals.ModelText{Phase: PhaseExecute, StepID: "s1", Bytes: int64(len(whole)), Text: whole},
		texts[len(texts)-1])
}

func TestWithoutStreamingTheCallsAskForNoText(t *testing.T) {
	model := &streamingLLM{replies: []streamedReply{{deltas: []string{"a", "b"}}, {deltas: []string{"c"}}}}
	a := worker{LLM: model}.set()
	h := &heartbeats{}
	env, _ := activityEnv(h)
	env.RegisterActivity(a.ExecuteLLMStep)
	_, err := env.ExecuteActivity(a.ExecuteLLMStep, llmStepInput())
	require.NoError(t, err)

	a = worker{LLM: model, LLMConfig: llm.Config{Stream: true}}.set()
	res, err := a.ExecuteLLMStep(context.Background(), llmStepInput())
	require.NoError(t, err)
	assert.Equal(t, "c", res.Output)

	assert.Equal(t, []bool{false, false}, model.asked(), "llm.stream off, then outside an activity")
	_, ok := h.texts(t)
	assert.NotContains(t, ok, true, "no heartbeat is a text")
}

func TestAnInspectionsBeatsKeepTheText(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.go": "package a\n"})
	model := &streamingLLM{replies: []streamedReply{
		{deltas: []string{"Let me ", "look."}, calls: []ToolCall{{ID: "c1", Name: "list_files", Arguments: `{}`}}},
		{deltas: []string{`{"decision":"continue",`, `"reason":"on track"}`}},
	}}
	a := worker{LLM: model, LLMConfig: llm.Config{Stream: true}}.set()
	h := &heartbeats{}
	env, _ := activityEnv(h)
	env.RegisterActivity(a.Reflect)

	in := ReflectInput{Context: plan.StepContext{Goal: "g", Step: plan.Step{ID: "s2", Title: "Edit"}}, Workspace: ws,
		Result: editedFile()}
	val, err := env.ExecuteActivity(a.Reflect, in)
	require.NoError(t, err)
	var r plan.Reflection
	require.NoError(t, val.Get(&r))
	assert.Equal(t, plan.DecisionContinue, r.Decision)
	assert.Equal(t, 2, r.Usage.Calls)

	texts, ok := h.texts(t)
	require.NotEmpty(t, texts)
	assert.NotContains(t, ok, false, "the rounds' beats carry the text too")
	want := "Let me look.\n" + `{"decision":"continue","reason":"on track"}`
	assert.Equal(t, signals.ModelText{Phase: PhaseReflect, StepID: "s2", Bytes: int64(len(want)), Text: want},
		texts[len(texts)-1], "the calls of one activity run on, each on a new line")
	for i := 1; i < len(texts); i++ {
		assert.GreaterOrEqual(t, texts[i].Bytes, texts[i-1].Bytes, "the text only grows within an attempt")
	}
}
