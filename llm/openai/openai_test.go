package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/llm"
)

// seen is one request as a recording server saw it.
type seen struct {
	path, query string
	header      http.Header
	body        map[string]any
}

// recorder starts a loopback server answering every chat request with a
// fixed completion, and returns the requests it saw.
func recorder(t *testing.T) (*httptest.Server, *[]seen) {
	t.Helper()
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		got = append(got, seen{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body})
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"served","choices":[{"index":0,`+
			`"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestOpenAIRequestMapping(t *testing.T) {
	srv, got := recorder(t)
	zero := 0.0
	o, err := New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "chat", Organization: "org-1",
		Temperature: &zero})
	require.NoError(t, err)
	resp, err := o.Complete(context.Background(), llm.Request{Phase: llm.PhaseExecute, MaxTokens: 50,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}, {Role: llm.RoleTool, ToolCallID: "c1"}}})
	require.NoError(t, err)
	assert.Equal(t, "hi", resp.Content)
	assert.Equal(t, "served", resp.Model)
	assert.Equal(t, 10, resp.Usage.TotalTokens)

	_, err = o.Complete(context.Background(), llm.Request{Phase: llm.PhaseExecute, Model: "o3-mini", MaxTokens: 50})
	require.NoError(t, err)

	require.Len(t, *got, 2)
	first := (*got)[0]
	assert.Equal(t, "/v1/chat/completions", first.path)
	assert.Equal(t, "Bearer k", first.header.Get("Authorization"))
	assert.Equal(t, "org-1", first.header.Get("OpenAI-Organization"))
	assert.Equal(t, "chat", first.body["model"])
	assert.EqualValues(t, 50, first.body["max_tokens"])
	temp, sent := first.body["temperature"].(float64)
	assert.True(t, sent, "a zero temperature is still sent")
	assert.Less(t, temp, 1e-6)
	msgs := first.body["messages"].([]any)
	assert.Equal(t, "(no output)", msgs[1].(map[string]any)["content"])

	reasoning := (*got)[1].body
	assert.Equal(t, "o3-mini", reasoning["model"])
	assert.EqualValues(t, 50, reasoning["max_completion_tokens"])
	assert.NotContains(t, reasoning, "max_tokens")
	assert.NotContains(t, reasoning, "temperature")
}

func TestOpenAIAzure(t *testing.T) {
	srv, got := recorder(t)
	o, err := New(llm.Config{APIType: llm.APITypeAzure, BaseURL: srv.URL, APIKey: "azure-key", Model: "gpt-4o",
		AzureAPIVersion: "2024-10-21"})
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), llm.Request{Phase: llm.PhasePlan})
	require.NoError(t, err)
	require.Len(t, *got, 1)
	assert.Equal(t, "/openai/deployments/gpt-4o/chat/completions", (*got)[0].path)
	assert.Equal(t, "api-version=2024-10-21", (*got)[0].query)
	assert.Equal(t, "azure-key", (*got)[0].header.Get("api-key"))
	assert.Empty(t, (*got)[0].header.Get("Authorization"))
}

func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  llm.Config
		says string
	}{
		{"not a url", llm.Config{BaseURL: "localhost:8080"}, "not an http(s) URL"},
		{"azure without url", llm.Config{APIType: llm.APITypeAzure}, "required for Azure"},
		{"unknown type", llm.Config{APIType: "bedrock"}, `llm.apiType "bedrock" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.says)
		})
	}
	o, err := New(llm.Config{BaseURL: "http://127.0.0.1:1/v1"})
	require.NoError(t, err)
	_, err = o.Complete(context.Background(), llm.Request{Phase: llm.PhaseClarify})
	appErr := appError(t, err)
	assert.Equal(t, string(llm.ErrorTypeConfig), appErr.Type())
	assert.Contains(t, appErr.Message(), "set llm.model")
}

// appError asserts err is an ApplicationError and returns it.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	return appErr
}
