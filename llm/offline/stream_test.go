package offline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamEvents makes req streamed, with the usage, and returns every
// event the server sent.
func streamEvents(t *testing.T, c *openai.Client, req openai.ChatCompletionRequest) []openai.ChatCompletionStreamResponse {
	t.Helper()
	req.Stream = true
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	stream, err := c.CreateChatCompletionStream(context.Background(), req)
	require.NoError(t, err)
	defer stream.Close()
	var events []openai.ChatCompletionStreamResponse
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return events
		}
		require.NoError(t, err)
		events = append(events, ev)
	}
}

func TestStreamingSendsTheContentInPieces(t *testing.T) {
	long := strings.Repeat("Déjà vu — ünïcode ✓ 日本語 ", 20)
	tests := []struct {
		name string
		opts []ServerOption
	}{
		{name: "at once"},
		{name: "latency spread over the pieces", opts: []ServerOption{WithLatency(20 * time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, tt.opts...)
			c := newClient(t, s, "k")
			s.Enqueue("agent", Reply{Content: long, ToolCalls: []ToolCall{
				{Name: "read_file", Arguments: `{"path":"a.go"}`}, {Name: "list_files", Arguments: `{}`}}})
			events := streamEvents(t, c, phaseRequest("agent", "x"))

			var content strings.Builder
			var pieces int
			var calls []openai.ToolCall
			var finish openai.FinishReason
			var usage *openai.Usage
			for i, ev := range events {
				if ev.Usage != nil {
					usage = ev.Usage
				}
				for _, ch := range ev.Choices {
					if i == 0 {
						assert.Equal(t, openai.ChatMessageRoleAssistant, ch.Delta.Role, "the first event names the role")
					}
					if d := ch.Delta.Content; d != "" {
						pieces++
						assert.True(t, utf8.ValidString(d), "a piece is cut on a rune boundary: %q", d)
						assert.LessOrEqual(t, len(d), streamChunkBytes)
						assert.Empty(t, ch.Delta.ToolCalls, "the tool calls come apart from the text")
						content.WriteString(d)
					}
					if len(ch.Delta.ToolCalls) > 0 {
						assert.Nil(t, calls, "the tool calls come whole in one event")
						calls = ch.Delta.ToolCalls
					}
					if ch.FinishReason != "" {
						finish = ch.FinishReason
					}
				}
			}
			assert.Equal(t, long, content.String())
			assert.GreaterOrEqual(t, pieces, len(long)/streamChunkBytes, "a long reply arrives in many pieces")
			require.Len(t, calls, 2)
			assert.Equal(t, "read_file", calls[0].Function.Name)
			assert.Equal(t, `{"path":"a.go"}`, calls[0].Function.Arguments)
			require.NotNil(t, calls[1].Index)
			assert.Equal(t, 1, *calls[1].Index)
			assert.Equal(t, openai.FinishReasonToolCalls, finish)
			require.NotNil(t, usage)
			assert.Equal(t, s.Usage("agent").CompletionTokens, usage.CompletionTokens)
		})
	}
}

func TestStreamingAnEmptyReply(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("execute", Reply{})
	events := streamEvents(t, c, phaseRequest("execute", "x"))
	require.NotEmpty(t, events)
	require.Len(t, events[0].Choices, 1)
	assert.Equal(t, openai.ChatMessageRoleAssistant, events[0].Choices[0].Delta.Role)
	assert.Empty(t, events[0].Choices[0].Delta.Content)
}

func TestStreamingAnErrorReplyIsAnError(t *testing.T) {
	s := startServer(t, WithLatency(time.Millisecond))
	c := newClient(t, s, "k")
	s.Enqueue("execute", Reply{Status: 429, RetryAfter: "3"})
	req := phaseRequest("execute", "x")
	req.Stream = true
	_, err := c.CreateChatCompletionStream(context.Background(), req)
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 429, apiErr.HTTPStatusCode)
}

func TestCutRunes(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want []string
	}{
		{name: "empty", s: "", n: 4},
		{name: "short", s: "abc", n: 4, want: []string{"abc"}},
		{name: "exact pieces", s: "abcdef", n: 3, want: []string{"abc", "def"}},
		{name: "a rune is not cut", s: "abé", n: 3, want: []string{"ab", "é"}},
		{name: "a rune longer than a piece", s: "€a", n: 2, want: []string{"€", "a"}},
		{name: "many runes", s: "日本語", n: 4, want: []string{"日", "本", "語"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutRunes(tt.s, tt.n)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.s, strings.Join(got, ""))
		})
	}
}
