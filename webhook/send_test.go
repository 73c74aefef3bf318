package webhook_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

const testSecret = "s3cret"

// stepBody is the body of a step-completed event.
func stepBody() webhook.Body {
	return webhook.Body{
		Event:      webhook.EventStepCompleted,
		WorkflowID: "plan-1",
		RunID:      "run-1",
		Phase:      plan.PhaseExecuting,
		At:         time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Data:       webhook.Data{Step: &signals.StepRef{ID: "s2", Number: 2, Title: "Write tests"}, Percent: 40},
	}
}

// sendError asserts err is a delivery Error and returns it.
func sendError(t *testing.T, err error) *webhook.Error {
	t.Helper()
	var de *webhook.Error
	require.ErrorAs(t, err, &de)
	return de
}

func TestSendPostsASignedBody(t *testing.T) {
	r := testkit.NewReceiver(t)
	code, err := webhook.Sender{Secret: testSecret, AllowedURLs: []string{r.URL + "/hooks/"}}.Send(context.Background(), r.URL+"/hooks/plan", stepBody(), "k-1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	got := r.Deliveries()
	require.Len(t, got, 1)
	h := got[0].Header
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "step-completed", h.Get(webhook.HeaderEvent))
	assert.Equal(t, "k-1", h.Get(webhook.HeaderIdempotencyKey))
	assert.True(t, webhook.VerifySignature(testSecret, got[0].Body, h.Get(webhook.HeaderSignature)))
	assert.JSONEq(t, `{"event":"step-completed","workflowId":"plan-1","runId":"run-1","phase":"executing",
		"at":"2026-05-01T12:00:00Z","data":{"step":{"id":"s2","number":2,"title":"Write tests"},"percent":40}}`,
		string(got[0].Body))
}

func TestSendToTheDefaultReceiver(t *testing.T) {
	r := testkit.NewReceiver(t)
	_, err := webhook.Sender{URL: r.URL}.Send(context.Background(), "", stepBody(), "k")
	require.NoError(t, err)
	got := r.Deliveries()
	require.Len(t, got, 1)
	assert.Empty(t, got[0].Header.Get(webhook.HeaderSignature), "no secret, no signature")

	_, err = webhook.Sender{}.Send(context.Background(), "", stepBody(), "k")
	assert.ErrorIs(t, err, webhook.ErrNoReceiver)
}

func TestSendStampsABodyWithoutATimeInUTC(t *testing.T) {
	r := testkit.NewReceiver(t)
	body := stepBody()
	body.At = time.Time{}
	before := time.Now().UTC().Truncate(time.Second)
	_, err := webhook.Sender{URL: r.URL}.Send(context.Background(), "", body, "k")
	require.NoError(t, err)
	body.At = time.Date(2026, 5, 1, 14, 0, 0, 0, time.FixedZone("CEST", 2*60*60))
	_, err = webhook.Sender{URL: r.URL}.Send(context.Background(), "", body, "k")
	require.NoError(t, err)

	got := r.Deliveries()
	require.Len(t, got, 2)
	var stamped, given webhook.Body
	require.NoError(t, json.Unmarshal(got[0].Body, &stamped))
	require.NoError(t, json.Unmarshal(got[1].Body, &given))
	assert.False(t, stamped.At.Before(before), "stamped at sending, not zero: %v", stamped.At)
	assert.Equal(t, time.UTC, stamped.At.Location())
	assert.Contains(t, string(got[1].Body), `"at":"2026-05-01T12:00:00Z"`, "a given time is sent in UTC")
	assert.True(t, given.At.Equal(body.At))
}

func TestSendClassifiesAnswers(t *testing.T) {
	tests := []struct {
		status    int
		retryable bool
		delay     time.Duration
		message   string
	}{
		{http.StatusBadRequest, false, 0, "webhook rejected: 400 Bad Request: Bad Request from the receiver"},
		{http.StatusUnauthorized, false, 0, "webhook rejected: 401 Unauthorized"},
		{http.StatusNotFound, false, 0, "webhook rejected: 404 Not Found"},
		{http.StatusFound, false, 0, "webhook rejected: 302 Found"},
		{http.StatusRequestTimeout, true, 0, "webhook step-completed failed: 408 Request Timeout"},
		{http.StatusTooManyRequests, true, 7 * time.Second, "webhook step-completed failed: 429 Too Many Requests"},
		{http.StatusInternalServerError, true, 0, "webhook step-completed failed: 500 Internal Server Error"},
		{http.StatusBadGateway, true, 0, "webhook step-completed failed: 502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			r := testkit.NewReceiver(t, tt.status)
			code, err := webhook.Sender{AllowedURLs: []string{r.URL}}.Send(context.Background(), r.URL, stepBody(), "k")
			de := sendError(t, err)
			assert.Equal(t, tt.retryable, de.Retryable)
			assert.Equal(t, tt.delay, de.RetryAfter, "Retry-After is honoured")
			assert.Equal(t, tt.status, code)
			assert.Equal(t, tt.status, de.StatusCode)
			assert.Contains(t, de.Error(), tt.message)
		})
	}
}

func TestSendNetworkFailureIsRetryableAndHidesTheURL(t *testing.T) {
	r := testkit.NewReceiver(t)
	url := r.URL + "/hook?token=topsecret"
	r.Close() // nothing listens any more

	_, err := webhook.Sender{URL: url}.Send(context.Background(), "", stepBody(), "k")
	de := sendError(t, err)
	assert.True(t, de.Retryable)
	assert.Zero(t, de.StatusCode)
	assert.NotContains(t, err.Error(), "topsecret")
}

func TestSendRefusesABadURL(t *testing.T) {
	for _, url := range []string{"ftp://127.0.0.1/x?token=topsecret", "not a url", "http://"} {
		_, err := webhook.Sender{URL: url}.Send(context.Background(), "", stepBody(), "k")
		de := sendError(t, err)
		assert.False(t, de.Retryable, url)
		assert.NotContains(t, err.Error(), "topsecret")
	}
}

func TestVerifySignature(t *testing.T) {
	body := []byte(`{"event":"completed"}`)
	good := webhook.Signature(testSecret, body)
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
		{"empty secret", "", body, webhook.Signature("", body), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, webhook.VerifySignature(tt.secret, tt.body, tt.header))
		})
	}
}

// TestSendOnlyToAllowedURLs: a plan may name its own receiver only where the
// operator allowed it, so a starter cannot make the worker sign and POST to
// any address.
func TestSendOnlyToAllowedURLs(t *testing.T) {
	r := testkit.NewReceiver(t)
	s := webhook.Sender{Secret: testSecret, AllowedURLs: []string{r.URL + "/hooks/", r.URL + "/exact"}}
	for _, ok := range []string{r.URL + "/hooks/plan-7", r.URL + "/hooks/a/b?x=1", r.URL + "/exact"} {
		_, err := s.Send(context.Background(), ok, stepBody(), "k")
		assert.NoError(t, err, ok)
	}
	for _, refused := range []string{r.URL + "/other", r.URL + "/hooks/../admin", r.URL + "/exact/more",
		r.URL + "/hooksx", "http://user:pw@" + strings.TrimPrefix(r.URL, "http://") + "/hooks/x", "http://169.254.169.254/hooks/"} {
		_, err := s.Send(context.Background(), refused, stepBody(), "k")
		de := sendError(t, err)
		assert.False(t, de.Retryable, refused)
		assert.Contains(t, err.Error(), "notify.allowedURLs", refused)
	}
	assert.Len(t, r.Deliveries(), 3, "only the allowed receivers were called")
	_, err := webhook.Sender{}.Send(context.Background(), r.URL+"/hooks/plan-7", stepBody(), "k")
	assert.ErrorContains(t, err, "notify.allowedURLs", "no allowlist allows no plan's own URL")
}
