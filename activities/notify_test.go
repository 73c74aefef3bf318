package activities_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdklog "go.temporal.io/sdk/log"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

const testSecret = "s3cret"

// delivery is one request a receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a webhook receiver on loopback that answers with the given
// statuses in turn (200 once they run out) and records every delivery.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []delivery
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: body})
		code := http.StatusOK
		if len(r.statuses) > 0 {
			code, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, http.StatusText(code)+" from the receiver")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// notify runs the Notify activity in a test activity environment.
func notify(t *testing.T, a *activities.Activities, in activities.NotifyInput) (activities.NotifyOutput, error) {
	t.Helper()
	var suite sdktest.WorkflowTestSuite
	suite.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	val, err := env.ExecuteActivity(a.Notify, in)
	var out activities.NotifyOutput
	if err == nil {
		require.NoError(t, val.Get(&out))
	}
	return out, err
}

func stepInput(url string) activities.NotifyInput {
	return activities.NotifyInput{
		URL:            url,
		Event:          activities.EventStepCompleted,
		WorkflowID:     "plan-1",
		RunID:          "run-1",
		Phase:          plan.PhaseExecuting,
		At:             time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Data:           activities.NotifyData{Step: &signals.StepRef{ID: "s2", Number: 2, Title: "Write tests"}, Percent: 40},
		IdempotencyKey: "plan-1/step-completed/2",
	}
}

func TestNotifyPostsASignedBody(t *testing.T) {
	r := newReceiver(t)
	a := activities.New(activities.WithWebhooks("", testSecret, nil))
	out, err := notify(t, a, stepInput(r.URL+"/hooks/plan"))
	require.NoError(t, err)
	assert.Equal(t, activities.NotifyOutput{Sent: true, StatusCode: http.StatusOK}, out)

	got := r.deliveries()
	require.Len(t, got, 1)
	h := got[0].header
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "step-completed", h.Get(activities.HeaderEvent))
	assert.Equal(t, "plan-1/step-completed/2", h.Get(activities.HeaderIdempotencyKey))
	assert.True(t, strings.HasPrefix(h.Get(activities.HeaderSignature), "sha256="))
	assert.True(t, activities.VerifySignature(testSecret, got[0].body, h.Get(activities.HeaderSignature)))
	assert.JSONEq(t, `{"event":"step-completed","workflowId":"plan-1","runId":"run-1","phase":"executing",
		"at":"2026-05-01T12:00:00Z","data":{"step":{"id":"s2","number":2,"title":"Write tests"},"percent":40}}`,
		string(got[0].body))
}

func TestNotifyUsesTheWorkerURLWhenThePlanNamesNone(t *testing.T) {
	r := newReceiver(t)
	a := activities.New(activities.WithWebhooks(r.URL, "", nil))
	in := stepInput("")
	in.IdempotencyKey = ""
	out, err := notify(t, a, in)
	require.NoError(t, err)
	assert.True(t, out.Sent)
	got := r.deliveries()
	require.Len(t, got, 1)
	assert.Empty(t, got[0].header.Get(activities.HeaderSignature), "no secret, no signature")
	assert.NotEmpty(t, got[0].header.Get(activities.HeaderIdempotencyKey), "a key derived from the activity")
	assert.Contains(t, got[0].header.Get(activities.HeaderIdempotencyKey), "/step-completed/")
}

func TestNotifyWithoutURLDoesNothingAndSaysSo(t *testing.T) {
	out, err := notify(t, activities.New(), stepInput(""))
	require.NoError(t, err)
	assert.Equal(t, activities.NotifyOutput{NoReceiver: true}, out, "the workflow stops scheduling deliveries")
}

func TestNotifyRetriesFailuresUnderOneKey(t *testing.T) {
	r := newReceiver(t, http.StatusServiceUnavailable, http.StatusTooManyRequests)
	a := activities.New(activities.WithWebhooks("", testSecret, nil))
	in := stepInput(r.URL)

	// The test environment does not retry: each call stands for one attempt.
	for i, wantDelay := range []time.Duration{0, 7 * time.Second} {
		_, err := notify(t, a, in)
		ae := appErr(t, err)
		assert.False(t, ae.NonRetryable(), "attempt %d", i+1)
		assert.Equal(t, activities.ErrWebhookFailed, ae.Type())
		assert.Equal(t, wantDelay, ae.NextRetryDelay(), "attempt %d honours Retry-After", i+1)
	}
	out, err := notify(t, a, in)
	require.NoError(t, err)
	assert.True(t, out.Sent)

	got := r.deliveries()
	require.Len(t, got, 3)
	for _, d := range got {
		assert.Equal(t, "plan-1/step-completed/2", d.header.Get(activities.HeaderIdempotencyKey))
		assert.Equal(t, string(got[0].body), string(d.body), "every attempt sends the same body")
		assert.True(t, activities.VerifySignature(testSecret, d.body, d.header.Get(activities.HeaderSignature)))
	}
}

func TestNotifyClassifiesAnswers(t *testing.T) {
	tests := []struct {
		status    int
		retryable bool
		message   string
	}{
		{http.StatusBadRequest, false, "webhook rejected: 400 Bad Request: Bad Request from the receiver"},
		{http.StatusUnauthorized, false, "webhook rejected: 401 Unauthorized"},
		{http.StatusNotFound, false, "webhook rejected: 404 Not Found"},
		{http.StatusFound, false, "webhook rejected: 302 Found"},
		{http.StatusRequestTimeout, true, "webhook step-completed failed: 408 Request Timeout"},
		{http.StatusInternalServerError, true, "webhook step-completed failed: 500 Internal Server Error"},
		{http.StatusBadGateway, true, "webhook step-completed failed: 502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			r := newReceiver(t, tt.status)
			out, err := notify(t, activities.New(), stepInput(r.URL))
			ae := appErr(t, err)
			assert.Equal(t, !tt.retryable, ae.NonRetryable())
			assert.Contains(t, ae.Error(), tt.message)
			assert.False(t, out.Sent)
		})
	}
}

func TestNotifyNetworkFailureIsRetryableAndHidesTheURL(t *testing.T) {
	r := newReceiver(t)
	url := r.URL + "/hook?token=topsecret"
	r.Close() // nothing listens any more

	_, err := notify(t, activities.New(), stepInput(url))
	ae := appErr(t, err)
	assert.False(t, ae.NonRetryable())
	assert.Equal(t, activities.ErrWebhookFailed, ae.Type())
	assert.NotContains(t, err.Error(), "topsecret")
}

func TestNotifyRefusesABadURL(t *testing.T) {
	for _, url := range []string{"ftp://127.0.0.1/x?token=topsecret", "not a url", "http://"} {
		_, err := notify(t, activities.New(), stepInput(url))
		ae := appErr(t, err)
		assert.True(t, ae.NonRetryable(), url)
		assert.Equal(t, activities.ErrWebhookRejected, ae.Type(), url)
		assert.NotContains(t, err.Error(), "topsecret")
	}
}

func TestVerifySignature(t *testing.T) {
	body := []byte(`{"event":"completed"}`)
	good := activities.Signature(testSecret, body)
	tests := []struct {
		name   string
		secret string
		body   []byte
		header string
		want   bool
	}{
		{"valid", testSecret, body, good, true},
		{"other secret", "other", body, good, false},
		{"changed body", testSecret, []byte(`{"event":"failed"}`), good, false},
		{"no prefix", testSecret, body, strings.TrimPrefix(good, "sha256="), false},
		{"not hex", testSecret, body, "sha256=zz", false},
		{"empty header", testSecret, body, "", false},
		{"empty secret", "", body, activities.Signature("", body), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, activities.VerifySignature(tt.secret, tt.body, tt.header))
		})
	}
}

func TestNotifyBodyDecodes(t *testing.T) {
	r := newReceiver(t)
	in := stepInput(r.URL)
	in.Event, in.Phase = activities.EventCompleted, plan.PhaseCompleted
	in.Data = activities.NotifyData{Status: signals.StatusCompleted, Summary: "done"}
	_, err := notify(t, activities.New(), in)
	require.NoError(t, err)

	var body activities.NotifyBody
	require.NoError(t, json.Unmarshal(r.deliveries()[0].body, &body))
	assert.Equal(t, activities.NotifyBody{Event: activities.EventCompleted, WorkflowID: "plan-1", RunID: "run-1",
		Phase: plan.PhaseCompleted, At: in.At, Data: in.Data}, body)
}
