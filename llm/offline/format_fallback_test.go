package offline_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/llm/reply"
)

// The adapter against a provider that refuses response_format: the
// offline server's scripted error replies stand in for it, over loopback
// HTTP.

// jsonRequest is a plan-phase request for structured JSON.
func jsonRequest(model string) llm.Request {
	return llm.Request{Phase: llm.PhasePlan, Model: model, Format: llm.FormatJSON, Schema: reply.OptionsSchema,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: llm.PhaseLine + llm.PhasePlan},
			{Role: llm.RoleUser, Content: "Goal: tidy. Reply with JSON."}}}
}

// nonRetryable reports whether err is an application error Temporal does
// not retry.
func nonRetryable(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.NonRetryable()
}

func formatAdapter(t *testing.T) (*openai.Client, *offline.Server) {
	t.Helper()
	srv := offline.New()
	t.Cleanup(srv.Close)
	c, err := openai.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: offline.DefaultModel, JSONSchema: true})
	require.NoError(t, err)
	return c, srv
}

// formats returns, per recorded request, whether it asked for a
// response_format.
func formats(srv *offline.Server) []bool {
	var out []bool
	for _, r := range srv.Requests() {
		out = append(out, r.Request.ResponseFormat != nil)
	}
	return out
}

func TestAdapterFallsBackToPromptOnlyJSON(t *testing.T) {
	for _, msg := range []string{
		"response_format is not supported by this model",
		"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
		"json_object mode unavailable",
	} {
		t.Run(msg, func(t *testing.T) {
			c, srv := formatAdapter(t)
			srv.Enqueue(llm.PhasePlan, offline.Reply{Status: 400, Content: msg})
			resp, err := c.Complete(context.Background(), jsonRequest("m1"))
			require.NoError(t, err, "the same call goes again without response_format")
			got, err := llm.DecodeReply(resp.Content, func(o *reply.Options) error { return o.Check(0) })
			require.NoError(t, err, resp.Content)
			assert.NotEmpty(t, got.Options)
			assert.Equal(t, []bool{true, false}, formats(srv))

			_, err = c.Complete(context.Background(), jsonRequest("m1"))
			require.NoError(t, err)
			assert.Equal(t, []bool{true, false, false}, formats(srv), "the model is remembered")

			_, err = c.Complete(context.Background(), jsonRequest("m2"))
			require.NoError(t, err)
			assert.Equal(t, []bool{true, false, false, true}, formats(srv), "another model still gets response_format")
		})
	}
}

func TestAdapterKeepsOtherBadRequests(t *testing.T) {
	c, srv := formatAdapter(t)
	srv.Enqueue(llm.PhasePlan, offline.Reply{Status: 400, Content: "messages: too many"})
	_, err := c.Complete(context.Background(), jsonRequest("m1"))
	require.Error(t, err)
	assert.True(t, nonRetryable(err), "%v", err)
	assert.Equal(t, []bool{true}, formats(srv), "no second call")

	_, err = c.Complete(context.Background(), jsonRequest("m1"))
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true}, formats(srv), "nothing remembered")
}

func TestAdapterPromptOnlyFailureIsClassified(t *testing.T) {
	c, srv := formatAdapter(t)
	srv.Enqueue(llm.PhasePlan, offline.Reply{Status: 400, Content: "json_schema unsupported"},
		offline.Reply{Status: 429, RetryAfter: "3", Content: "slow down"})
	_, err := c.Complete(context.Background(), jsonRequest("m1"))
	require.Error(t, err)
	assert.False(t, nonRetryable(err), "the second answer's class counts: %v", err)
	assert.Equal(t, []bool{true, false}, formats(srv))
}

func TestAdapterRemembersAcrossConcurrentCalls(t *testing.T) {
	c, srv := formatAdapter(t)
	srv.Enqueue(llm.PhasePlan, offline.Reply{Status: 400, Content: "response_format unsupported"})
	_, err := c.Complete(context.Background(), jsonRequest("m1"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := c.Complete(context.Background(), jsonRequest("m1"))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got := formats(srv)
	require.Len(t, got, 10)
	assert.NotContains(t, got[1:], true)
}
