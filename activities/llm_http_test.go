package activities_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/openai"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/workspace/folders"
)

// These tests run the LLM activities over real HTTP, through go-openai,
// against the fake OpenAI-compatible server on loopback.

// serve starts a fake server closed with the test.
func serve(t *testing.T, opts ...offline.ServerOption) *offline.Server {
	t.Helper()
	srv := offline.New(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// over returns activities whose go-openai adapter talks to srv with cfg's
// settings.
func over(srv *offline.Server, cfg llm.Config) activities.Set {
	cfg.BaseURL = srv.URL()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	return with(cfg)
}

// with returns activities whose go-openai adapter is built from cfg, as
// the worker builds it, in the folders as found.
func with(cfg llm.Config) activities.Set {
	model, err := openai.New(cfg)
	if err != nil {
		panic(err)
	}
	t := &activities.Tools{Folders: &folders.Folders{}}
	return activities.Set{Model: &activities.Model{LLM: model, LLMConfig: cfg, Tools: t}, Tools: t,
		Workspaces: &activities.Workspaces{Folders: t.Folders}, Notices: &activities.Notices{}}
}

// appErr asserts err is an ApplicationError and returns it.
func appErr(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae, "error: %v", err)
	return ae
}

func TestErrorClassesOverHTTP(t *testing.T) {
	contextLength := `{"error":{"message":"This model's maximum context length is 8192 tokens.",` +
		`"type":"invalid_request_error","code":"context_length_exceeded"}}`
	tests := []struct {
		name      string
		reply     offline.Reply
		typ       llm.ErrorType
		retryable bool
		delay     time.Duration
		says      string
	}{
		{"400", offline.Reply{Status: 400, Content: "temperature is out of range"}, llm.ErrorTypeBadRequest, false, 0,
			"check llm.model"},
		{"404 model", offline.Reply{Status: 404, Content: "The model `test-model` does not exist"},
			llm.ErrorTypeNotFound, false, 0, `model "test-model" not found: check llm.model`},
		{"context length", offline.Reply{Status: 400, RawBody: contextLength}, llm.ErrorTypeContextLength, false, 0,
			"larger context window"},
		{"429 retry-after", offline.Reply{Status: 429, RetryAfter: "7"}, llm.ErrorTypeRateLimited, true,
			7 * time.Second, "rate limiting"},
		{"500", offline.Reply{Status: 500}, llm.ErrorTypeServer, true, 0, "failed"},
		{"503 retry-after", offline.Reply{Status: 503, RetryAfter: "2"}, llm.ErrorTypeServer, true, 2 * time.Second,
			"failed"},
		{"malformed body", offline.Reply{RawBody: "{not json"}, llm.ErrorTypeInvalidResponse, true, 0, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t)
			srv.Enqueue(activities.PhaseSummarize, tt.reply)
			_, err := over(srv, llm.Config{}).Summarize(context.Background(),
				activities.SummarizeInput{Goal: "g"})
			ae := appErr(t, err)
			assert.Equal(t, string(tt.typ), ae.Type())
			assert.Equal(t, !tt.retryable, ae.NonRetryable())
			assert.Equal(t, tt.delay, ae.NextRetryDelay())
			assert.Contains(t, ae.Message(), tt.says)
			assert.Equal(t, 1, srv.Calls(offline.AnyPhase), "the adapter never retries by itself")
		})
	}
}

func TestAuthErrorOverHTTP(t *testing.T) {
	srv := serve(t, offline.WithAPIKey("right-key"))
	a := over(srv, llm.Config{APIKey: "wrong-key"})
	_, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	ae := appErr(t, err)
	assert.Equal(t, string(llm.ErrorTypeAuth), ae.Type())
	assert.True(t, ae.NonRetryable())
	assert.Contains(t, ae.Message(), "check llm.apiKey")
	assert.NotContains(t, ae.Error(), "wrong-key", "the key never shows in errors")

	ok := over(srv, llm.Config{APIKey: "right-key"})
	_, err = ok.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	assert.NoError(t, err)
}

func TestTimeoutIsRetryableOverHTTP(t *testing.T) {
	srv := serve(t)
	srv.Enqueue(activities.PhaseSummarize, offline.Reply{Hang: true})
	a := over(srv, llm.Config{RequestTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	ae := appErr(t, err)
	assert.Equal(t, string(llm.ErrorTypeTimeout), ae.Type())
	assert.False(t, ae.NonRetryable())
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now
	a := with(llm.Config{BaseURL: "http://" + addr + "/v1", Model: "m"})
	_, err = a.Summarize(context.Background(), activities.SummarizeInput{Goal: "g"})
	ae := appErr(t, err)
	assert.Equal(t, string(llm.ErrorTypeNetwork), ae.Type())
	assert.False(t, ae.NonRetryable())
	assert.Contains(t, ae.Message(), "check llm.baseURL")
}

func TestCancelledCallIsNotClassified(t *testing.T) {
	srv := serve(t)
	srv.Enqueue(activities.PhaseSummarize, offline.Reply{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := over(srv, llm.Config{}).Summarize(ctx, activities.SummarizeInput{Goal: "g"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

// goodReflect is a valid reflect reply.
var goodReflect = reply.Reflect{Decision: plan.DecisionContinue, Reason: "on track"}

func TestRepairOverHTTP(t *testing.T) {
	t.Run("second reply good", func(t *testing.T) {
		srv := serve(t)
		srv.Enqueue(activities.PhaseReflect, offline.Reply{Content: "I think we should continue."},
			offline.JSONReply(goodReflect))
		r, err := over(srv, llm.Config{}).Reflect(context.Background(), activities.ReflectInput{Context: plan.StepContext{Goal: "g"}})
		require.NoError(t, err)
		assert.Equal(t, plan.DecisionContinue, r.Decision)
		assert.Equal(t, 2, srv.Calls(activities.PhaseReflect))
		assert.Equal(t, 2, r.Usage.Calls)
		reqs := srv.Requests()
		last := reqs[1].Request.Messages
		assert.Equal(t, "I think we should continue.", last[len(last)-2].Content)
		assert.Contains(t, last[len(last)-1].Content, "Your reply was not valid")
	})
	t.Run("both replies bad", func(t *testing.T) {
		srv := serve(t)
		srv.Enqueue(activities.PhaseReflect, offline.Reply{Content: `{"decision":"maybe"}`},
			offline.Reply{Content: `{"decision":"perhaps"}`})
		_, err := over(srv, llm.Config{}).Reflect(context.Background(), activities.ReflectInput{Context: plan.StepContext{Goal: "g"}})
		ae := appErr(t, err)
		assert.Equal(t, string(llm.ErrorTypeMalformedOutput), ae.Type())
		assert.True(t, ae.NonRetryable())
		assert.Contains(t, ae.Message(), `"perhaps" is not a decision`)
		assert.Equal(t, 2, srv.Calls(activities.PhaseReflect))
	})
}

func TestStructuredRequestsAsTheServerSeesThem(t *testing.T) {
	tests := []struct {
		name       string
		jsonSchema bool
		wantType   string
	}{
		{"json mode", false, "json_object"},
		{"json schema", true, "json_schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t)
			srv.Enqueue(activities.PhaseReflect, offline.JSONReply(goodReflect))
			a := over(srv, llm.Config{JSONSchema: tt.jsonSchema})
			_, err := a.Reflect(context.Background(), activities.ReflectInput{Context: plan.StepContext{Goal: "g"}})
			require.NoError(t, err)
			rf := srv.Requests()[0].Request.ResponseFormat
			require.NotNil(t, rf)
			assert.Equal(t, tt.wantType, string(rf.Type))
			if tt.jsonSchema {
				require.NotNil(t, rf.JSONSchema)
				assert.Equal(t, "reflect_reply", rf.JSONSchema.Name)
				b, err := rf.JSONSchema.Schema.MarshalJSON()
				require.NoError(t, err)
				assert.Contains(t, string(b), `"decision"`)
			} else {
				assert.Nil(t, rf.JSONSchema)
			}
		})
	}
}
