package offline

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newClient returns a go-openai client for s, as the adapter builds one.
func TestErrorReplies(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		status     int
		typ        string
		retryAfter string
	}{
		{"rate limit", Reply{Status: 429, RetryAfter: "2", Content: "slow down"}, 429, "rate_limit_error", "2"},
		{"server error", Reply{Status: 500}, 500, "server_error", ""},
		{"unavailable", Reply{Status: 503, RetryAfter: "1"}, 503, "server_error", "1"},
		{"bad request", Reply{Status: 400, Content: "bad"}, 400, "invalid_request_error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t)
			c := newClient(t, s, "k")
			s.Enqueue("plan", tt.reply)
			_, err := c.CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
			var apiErr *openai.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.HTTPStatusCode)
			assert.Equal(t, tt.typ, apiErr.Type)
			assert.NotEmpty(t, apiErr.Message)
			if tt.reply.Content != "" {
				assert.Equal(t, tt.reply.Content, apiErr.Message)
			}
			assert.Equal(t, 1, s.Calls("plan"))
			assert.Equal(t, Usage{}, s.Usage("plan"))
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	s := startServer(t)
	s.Enqueue(AnyPhase, Reply{Status: 429, RetryAfter: "7"})
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "7", resp.Header.Get("Retry-After"))
	var e apiError
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	assert.Equal(t, "rate_limit_exceeded", e.Error.Code)
	assert.Equal(t, PhaseUnknown, s.Requests()[0].Phase)
}

func TestHangEndsWithClientTimeout(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("reflect", Reply{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.CreateChatCompletion(ctx, phaseRequest("reflect", "x"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 0, s.Calls("reflect"))
	assert.Len(t, s.Requests(), 1)
}

func TestCloseReleasesHangingRequest(t *testing.T) {
	s := New()
	c := newClient(t, s, "k")
	s.Enqueue(AnyPhase, Reply{Hang: true})
	errc := make(chan error, 1)
	go func() {
		_, err := c.CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
		errc <- err
	}()
	require.Eventually(t, func() bool { return len(s.Requests()) == 1 }, 5*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case err := <-errc:
		assert.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("hanging request not released by Close")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked")
	}
}

func TestMalformedBody(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, "k")
	s.Enqueue("plan", Reply{RawBody: `{"choices": [ {"message": `})
	_, err := c.CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
	require.Error(t, err)
	var apiErr *openai.APIError
	assert.False(t, errors.As(err, &apiErr))

	s.Enqueue("plan", Reply{Status: 502, RawBody: "<html>bad gateway</html>"})
	_, err = c.CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
	var reqErr *openai.RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 502, reqErr.HTTPStatusCode)
	assert.Contains(t, string(reqErr.Body), "bad gateway")
	assert.Equal(t, 2, s.Calls("plan"))
}

func TestLatencyAndDelay(t *testing.T) {
	s := startServer(t, WithLatency(60*time.Millisecond))
	c := newClient(t, s, "k")
	s.Enqueue("execute", Reply{Content: "late", Delay: 40 * time.Millisecond})
	start := time.Now()
	resp, err := c.CreateChatCompletion(context.Background(), phaseRequest("execute", "x"))
	require.NoError(t, err)
	assert.Equal(t, "late", resp.Choices[0].Message.Content)
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = c.CreateChatCompletion(ctx, phaseRequest("execute", "x"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestAuth(t *testing.T) {
	s := startServer(t, WithAPIKey("secret"))
	_, err := newClient(t, s, "wrong").CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
	var apiErr *openai.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.HTTPStatusCode)
	assert.Equal(t, "invalid_api_key", apiErr.Code)

	_, err = newClient(t, s, "wrong").ListModels(context.Background())
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.HTTPStatusCode)

	s.Enqueue("plan", Reply{Content: "ok"})
	resp, err := newClient(t, s, "secret").CreateChatCompletion(context.Background(), phaseRequest("plan", "x"))
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Choices[0].Message.Content)
}

func TestBadRequestAndUnknownPath(t *testing.T) {
	s := startServer(t)
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader("{not json"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	resp, err = http.Get(s.URL() + "/embeddings")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(b), `"error"`)
}
