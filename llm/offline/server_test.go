package offline

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newClient returns a go-openai client for s, as the adapter builds one.
func newClient(t *testing.T, s *Server, key string) *openai.Client {
	t.Helper()
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = s.URL()
	return openai.NewClientWithConfig(cfg)
}

// phaseRequest returns a request for phase with one user message.
func phaseRequest(phase, user string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model: "test-model",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: phasePrefix + phase + "\nYou are planmode."},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
}

func startServer(t *testing.T, opts ...ServerOption) *Server {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	return s
}

func TestURLIsLoopbackV1(t *testing.T) {
	s := startServer(t)
	assert.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"), s.URL())
	assert.True(t, strings.HasSuffix(s.URL(), "/v1"), s.URL())
}

func TestScriptedRepliesArePerPhaseFIFO(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("plan", Reply{Content: "plan-1"}, Reply{Content: "plan-2"})
	s.Enqueue(AnyPhase, Reply{Content: "any-1"})
	s.Enqueue("clarify", Reply{Content: "clarify-1"})
	ctx := context.Background()

	want := []struct{ phase, content string }{
		{"plan", "plan-1"},
		{"clarify", "clarify-1"},
		{"plan", "plan-2"},
		{"plan", "any-1"},
	}
	for i, w := range want {
		resp, err := c.CreateChatCompletion(ctx, phaseRequest(w.phase, "go"))
		require.NoError(t, err, i)
		require.Len(t, resp.Choices, 1)
		assert.Equal(t, w.content, resp.Choices[0].Message.Content, i)
		assert.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)
		assert.Equal(t, openai.ChatMessageRoleAssistant, resp.Choices[0].Message.Role)
		assert.Equal(t, "test-model", resp.Model)
	}
	assert.Equal(t, 0, s.Pending(AnyPhase))
	assert.Equal(t, 3, s.Calls("plan"))
	assert.Equal(t, 1, s.Calls("clarify"))
	assert.Equal(t, 4, s.Calls(AnyPhase))

	reqs := s.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "clarify", reqs[1].Phase)
	assert.Equal(t, "test-model", reqs[1].Model)
	assert.Equal(t, "go", reqs[1].Request.Messages[1].Content)
	assert.False(t, reqs[1].At.IsZero())
}

func TestResponseIDsAreDeterministic(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	for _, want := range []string{"chatcmpl-1", "chatcmpl-2"} {
		resp, err := c.CreateChatCompletion(context.Background(), phaseRequest("execute", "x"))
		require.NoError(t, err)
		assert.Equal(t, want, resp.ID)
		assert.Equal(t, int64(created), resp.Created)
	}
	s.Reset()
	assert.Equal(t, 0, s.Calls(AnyPhase))
	assert.Empty(t, s.Requests())
	resp, err := c.CreateChatCompletion(context.Background(), phaseRequest("execute", "x"))
	require.NoError(t, err)
	assert.Equal(t, "chatcmpl-1", resp.ID)
}

func TestToolCalls(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("agent", Reply{ToolCalls: []ToolCall{
		{Name: "list_files", Arguments: `{"path":"."}`},
		{Name: "read_file", Arguments: `{"path":"go.mod"}`},
	}})
	s.Enqueue("agent", Reply{ToolCalls: []ToolCall{{Name: "write_file", Arguments: `{}`}}})

	resp, err := c.CreateChatCompletion(context.Background(), phaseRequest("agent", "look"))
	require.NoError(t, err)
	msg := resp.Choices[0].Message
	assert.Equal(t, openai.FinishReasonToolCalls, resp.Choices[0].FinishReason)
	require.Len(t, msg.ToolCalls, 2)
	assert.Equal(t, "call_1", msg.ToolCalls[0].ID)
	assert.Equal(t, openai.ToolTypeFunction, msg.ToolCalls[0].Type)
	assert.Equal(t, "list_files", msg.ToolCalls[0].Function.Name)
	assert.JSONEq(t, `{"path":"."}`, msg.ToolCalls[0].Function.Arguments)
	assert.Equal(t, "call_2", msg.ToolCalls[1].ID)

	resp, err = c.CreateChatCompletion(context.Background(), phaseRequest("agent", "again"))
	require.NoError(t, err)
	require.Len(t, resp.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, "call_3", resp.Choices[0].Message.ToolCalls[0].ID)
}

func TestUsageCounts(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	req := phaseRequest("execute", "12345") // system line below + 5 chars
	req.Messages = append(req.Messages, openai.ChatCompletionMessage{
		Role:      openai.ChatMessageRoleAssistant,
		ToolCalls: []openai.ToolCall{{ID: "a", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: `{"a":1}`}}},
	})
	req.Tools = []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "f"}}}
	toolsJSON, err := json.Marshal(req.Tools)
	require.NoError(t, err)
	chars := len(req.Messages[0].Content) + len("12345") + len(`{"a":1}`) + len(toolsJSON)
	wantPrompt := (chars + 3) / 4

	s.Enqueue("execute", Reply{Content: "abcdefghi", ToolCalls: []ToolCall{{Name: "g", Arguments: "{}"}}}) // 9+2 chars → 3
	resp, err := c.CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, wantPrompt, resp.Usage.PromptTokens)
	assert.Equal(t, 3, resp.Usage.CompletionTokens)
	assert.Equal(t, wantPrompt+3, resp.Usage.TotalTokens)

	s.Enqueue("summarize", Reply{Content: "abcd"})
	resp2, err := c.CreateChatCompletion(context.Background(), phaseRequest("summarize", ""))
	require.NoError(t, err)
	assert.Equal(t, 1, resp2.Usage.CompletionTokens)

	assert.Equal(t, Usage{PromptTokens: wantPrompt, CompletionTokens: 3}, s.Usage("execute"))
	assert.Equal(t, Usage{
		PromptTokens:     wantPrompt + resp2.Usage.PromptTokens,
		CompletionTokens: 4,
	}, s.Usage(AnyPhase))
}

func TestModels(t *testing.T) {
	s := startServer(t, WithModel("tiny-1"))
	models, err := newClient(t, s, "k").ListModels(context.Background())
	require.NoError(t, err)
	require.Len(t, models.Models, 1)
	assert.Equal(t, "tiny-1", models.Models[0].ID)
	assert.Equal(t, "model", models.Models[0].Object)

	s.Enqueue(AnyPhase, Reply{Content: "x"})
	req := phaseRequest("plan", "x")
	req.Model = ""
	resp, err := newClient(t, s, "k").CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "tiny-1", resp.Model)
}

func TestParsePhase(t *testing.T) {
	sys := func(c string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: c}
	}
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "planmode phase: plan"}
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessage
		want string
	}{
		{"first line", []openai.ChatCompletionMessage{sys("planmode phase: clarify\nrest")}, "clarify"},
		{"only line", []openai.ChatCompletionMessage{sys("planmode phase: summarize")}, "summarize"},
		{"crlf", []openai.ChatCompletionMessage{sys("planmode phase: agent\r\nrest")}, "agent"},
		{"not first line", []openai.ChatCompletionMessage{sys("hello\nplanmode phase: plan")}, PhaseUnknown},
		{"only first system counts", []openai.ChatCompletionMessage{sys("x"), sys("planmode phase: plan")}, PhaseUnknown},
		{"user message ignored", []openai.ChatCompletionMessage{user}, PhaseUnknown},
		{"user before system", []openai.ChatCompletionMessage{user, sys("planmode phase: reflect")}, "reflect"},
		{"empty phase", []openai.ChatCompletionMessage{sys("planmode phase: ")}, PhaseUnknown},
		{"none", nil, PhaseUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ParsePhase(tt.msgs))
		})
	}
}

func TestStreaming(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("execute", Reply{Content: "streamed answer"})
	req := phaseRequest("execute", "x")
	req.Stream = true
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	stream, err := c.CreateChatCompletionStream(context.Background(), req)
	require.NoError(t, err)
	defer stream.Close()
	var content strings.Builder
	var finish openai.FinishReason
	var usage *openai.Usage
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		for _, ch := range chunk.Choices {
			content.WriteString(ch.Delta.Content)
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
	}
	assert.Equal(t, "streamed answer", content.String())
	assert.Equal(t, openai.FinishReasonStop, finish)
	require.NotNil(t, usage)
	assert.Equal(t, 4, usage.CompletionTokens)
}

func TestJSONResponseFormatWrapsBrainProse(t *testing.T) {
	brain := BrainFunc(func(string, openai.ChatCompletionRequest) Reply { return Reply{Content: "plain words"} })
	s := startServer(t, WithBrain(brain))
	c := newClient(t, s, "k")
	req := phaseRequest("execute", "x")
	req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	resp, err := c.CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"response":"plain words"}`, resp.Choices[0].Message.Content)

	req.ResponseFormat = &openai.ChatCompletionResponseFormat{
		Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
			Name: "reply", Schema: json.RawMessage(`{"type":"object"}`), Strict: true,
		},
	}
	resp, err = c.CreateChatCompletion(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"response":"plain words"}`, resp.Choices[0].Message.Content)
	recorded := s.Requests()[1].Request.ResponseFormat
	require.NotNil(t, recorded)
	require.NotNil(t, recorded.JSONSchema)
	assert.Equal(t, "reply", recorded.JSONSchema.Name)

	resp, err = c.CreateChatCompletion(context.Background(), phaseRequest("execute", "x"))
	require.NoError(t, err)
	assert.Equal(t, "plain words", resp.Choices[0].Message.Content)
}

func TestConcurrentRequests(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	const n = 20
	for i := 0; i < n; i++ {
		s.Enqueue("plan", Reply{Content: "ok"})
	}
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			_, err := c.CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
			errc <- err
		}()
	}
	for i := 0; i < n; i++ {
		require.NoError(t, <-errc)
	}
	assert.Equal(t, n, s.Calls("plan"))
	assert.Equal(t, 0, s.Pending("plan"))
	assert.Len(t, s.Requests(), n)
}
