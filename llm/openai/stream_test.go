package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
)

// deltas collects what a call hands to OnText.
type deltas struct{ got []string }

func (d *deltas) onText(s string) { d.got = append(d.got, s) }

// request is a request of phase with a phase line and one user message.
func request(phase string) llm.Request {
	return llm.Request{Phase: phase, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: llm.PhaseLine + phase}, {Role: llm.RoleUser, Content: "go"}}}
}

// offlineAdapter returns the adapter talking to a fresh offline server.
func offlineAdapter(t *testing.T) (*Client, *offline.Server) {
	t.Helper()
	srv := offline.New()
	t.Cleanup(srv.Close)
	o, err := New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: offline.DefaultModel})
	require.NoError(t, err)
	return o, srv
}

func TestStreamedReplyIsThePlainReply(t *testing.T) {
	content := strings.Repeat("Déjà vu — the answer is ✓ 42. ", 12)
	calls := []offline.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}, {Name: "list_files", Arguments: `{}`}}
	tests := []struct {
		name  string
		reply offline.Reply
	}{
		{name: "text", reply: offline.Reply{Content: content}},
		{name: "text and tool calls", reply: offline.Reply{Content: "Looking first.", ToolCalls: calls}},
		{name: "tool calls only", reply: offline.Reply{ToolCalls: calls}},
		{name: "cut off", reply: offline.Reply{Content: content, FinishReason: llm.FinishLength}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, srv := offlineAdapter(t)
			srv.Enqueue(llm.PhaseAgent, tt.reply, tt.reply)
			plain, err := o.Complete(context.Background(), request(llm.PhaseAgent))
			require.NoError(t, err)
			var d deltas
			req := request(llm.PhaseAgent)
			req.OnText = d.onText
			streamed, err := o.Complete(context.Background(), req)
			require.NoError(t, err)

			// The offline server numbers tool calls across its life.
			for i := range plain.ToolCalls {
				plain.ToolCalls[i].ID = ""
				streamed.ToolCalls[i].ID = ""
			}
			assert.Equal(t, plain, streamed)
			assert.Equal(t, tt.reply.Content, strings.Join(d.got, ""), "the deltas make the content")
			if len(tt.reply.Content) > 50 {
				assert.Greater(t, len(d.got), 1, "a long reply arrives in pieces")
			}
			for _, piece := range d.got {
				assert.NotContains(t, piece, "path", "no tool call's arguments reach OnText")
			}
			assert.Positive(t, streamed.Usage.TotalTokens, "the usage comes with the stream")
			assert.Equal(t, 1, streamed.Usage.Calls)

			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			assert.False(t, reqs[0].Request.Stream, "no OnText: a plain call")
			assert.True(t, reqs[1].Request.Stream)
			require.NotNil(t, reqs[1].Request.StreamOptions)
			assert.True(t, reqs[1].Request.StreamOptions.IncludeUsage)
		})
	}
}

func TestStreamedToolCallsAreAssembledByIndex(t *testing.T) {
	events := []string{
		`{"id":"c","model":"served","choices":[{"index":0,"delta":{"role":"assistant","content":"Reading"}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"content":" two files.","tool_calls":[` +
			`{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[` +
			`{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.go\"}"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"b.go\"}"}}]}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"c","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`,
		`[DONE]`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			_, _ = fmt.Fprintf(w, "data: %s\n\n", ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	o, err := New(llm.Config{BaseURL: srv.URL + "/v1", Model: "chat"})
	require.NoError(t, err)
	var d deltas
	req := request(llm.PhaseAgent)
	req.OnText = d.onText
	resp, err := o.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, llm.Response{
		Content: "Reading two files.",
		ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`},
			{ID: "call_b", Name: "read_file", Arguments: `{"path":"b.go"}`}},
		Usage:        plan.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10, Calls: 1},
		FinishReason: "tool_calls",
		Model:        "served",
	}, resp)
	assert.Equal(t, []string{"Reading", " two files."}, d.got, "only the content reaches OnText")
}

// refuser answers a streamed request with status, content type and body,
// and any other with a plain completion; it records whether each request
// streamed.
func refuser(t *testing.T, status int, contentType, body string) (*httptest.Server, func() []bool) {
	t.Helper()
	var mu sync.Mutex
	var streamed []bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(b, &req)
		mu.Lock()
		streamed = append(streamed, req.Stream)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if req.Stream {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
			return
		}
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"served","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []bool {
		mu.Lock()
		defer mu.Unlock()
		return append([]bool(nil), streamed...)
	}
}

func TestAProviderThatDoesNotStreamIsCalledInOnePiece(t *testing.T) {
	plain := `{"id":"x","object":"chat.completion","model":"served","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}`
	const jsonType, events = "application/json", "text/event-stream"
	tests := []struct {
		name              string
		status            int
		contentType, body string
	}{
		{name: "refuses stream", status: http.StatusBadRequest, contentType: jsonType,
			body: `{"error":{"message":"Unsupported value: 'stream' does not support true with this model.",` +
				`"type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`},
		{name: "refuses stream_options", status: http.StatusUnprocessableEntity, contentType: jsonType,
			body: `{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`},
		{name: "answers in one piece", status: http.StatusOK, contentType: jsonType, body: plain},
		{name: "answers in one piece as events", status: http.StatusOK, contentType: events, body: plain},
		{name: "answers no event", status: http.StatusOK, contentType: events, body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, streamed := refuser(t, tt.status, tt.contentType, tt.body)
			o, err := New(llm.Config{BaseURL: srv.URL + "/v1", Model: "chat"})
			require.NoError(t, err)
			var d deltas
			req := request(llm.PhaseExecute)
			req.OnText = d.onText
			for range 2 {
				resp, err := o.Complete(context.Background(), req)
				require.NoError(t, err)
				assert.Equal(t, "whole", resp.Content)
				assert.Equal(t, 10, resp.Usage.TotalTokens)
			}
			assert.Equal(t, []bool{true, false, false}, streamed(), "the refusal is remembered for the model")
			assert.Empty(t, d.got, "nothing streamed")

			other := req
			other.Model = "other"
			_, err = o.Complete(context.Background(), other)
			require.NoError(t, err)
			assert.Equal(t, []bool{true, false, false, true, false}, streamed(), "another model is asked again")
		})
	}
}

func TestStreamedErrorsAreClassifiedAsPlainOnes(t *testing.T) {
	tests := []struct {
		name         string
		reply        offline.Reply
		typ          llm.ErrorType
		nonRetryable bool
		wait         time.Duration
	}{
		{name: "rate limit", reply: offline.Reply{Status: 429, RetryAfter: "7"}, typ: llm.ErrorTypeRateLimited,
			wait: 7 * time.Second},
		{name: "server", reply: offline.Reply{Status: 503}, typ: llm.ErrorTypeServer},
		{name: "key", reply: offline.Reply{Status: 401}, typ: llm.ErrorTypeAuth, nonRetryable: true},
		{name: "context", reply: offline.Reply{Status: 400, Content: "This model's maximum context length is 8192 tokens"},
			typ: llm.ErrorTypeContextLength, nonRetryable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, srv := offlineAdapter(t)
			srv.Enqueue(llm.PhaseExecute, tt.reply, tt.reply)
			_, plainErr := o.Complete(context.Background(), request(llm.PhaseExecute))
			var d deltas
			req := request(llm.PhaseExecute)
			req.OnText = d.onText
			_, err := o.Complete(context.Background(), req)

			appErr, plainApp := appError(t, err), appError(t, plainErr)
			assert.Equal(t, string(tt.typ), appErr.Type())
			assert.Equal(t, plainApp.Type(), appErr.Type())
			assert.Equal(t, plainApp.Message(), appErr.Message())
			assert.Equal(t, tt.nonRetryable, appErr.NonRetryable())
			assert.Equal(t, tt.wait, appErr.NextRetryDelay(), "the Retry-After of a refused stream is kept")
			assert.Equal(t, 2, srv.Calls(llm.PhaseExecute), "an error is not a refusal to stream: no second call")
		})
	}
}

func TestAStreamCutShortIsANetworkError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"c","choices":[{"index":0,"delta":{"content":"Half an"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(srv.Close)
	o, err := New(llm.Config{BaseURL: srv.URL + "/v1", Model: "chat"})
	require.NoError(t, err)
	var d deltas
	req := request(llm.PhaseExecute)
	req.OnText = d.onText
	_, err = o.Complete(context.Background(), req)
	appErr := appError(t, err)
	assert.Equal(t, string(llm.ErrorTypeNetwork), appErr.Type())
	assert.False(t, appErr.NonRetryable(), "another attempt may get the whole")
	assert.Equal(t, []string{"Half an"}, d.got, "what arrived reached OnText")
}

func TestRefusesStreaming(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "no events", err: errNotStreamed, want: true},
		{name: "400 about stream", err: &llm.ProviderError{StatusCode: 400, Message: "stream is not supported"}, want: true},
		{name: "400 code", err: &llm.ProviderError{StatusCode: 400, Code: "stream_unsupported"}, want: true},
		{name: "400 about something else", err: &llm.ProviderError{StatusCode: 400, Message: "bad temperature"}},
		{name: "500 about stream", err: &llm.ProviderError{StatusCode: 500, Message: "stream broke"}},
		{name: "network", err: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, refusesStreaming(tt.err, tt.err))
		})
	}
}
