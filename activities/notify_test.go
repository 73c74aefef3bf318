package activities_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdklog "go.temporal.io/sdk/log"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

const testSecret = "s3cret"

// notify runs the Notify activity in a test activity environment.
func notify(t *testing.T, a *activities.Notices, in activities.NotifyInput) (activities.NotifyOutput, error) {
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
		Event:          webhook.EventStepCompleted,
		WorkflowID:     "plan-1",
		RunID:          "run-1",
		Phase:          plan.PhaseExecuting,
		At:             time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Data:           activities.NotifyData{Step: &signals.StepRef{ID: "s2", Number: 2, Title: "Write tests"}, Percent: 40},
		IdempotencyKey: "plan-1/step-completed/2",
	}
}

func TestNotifyPostsASignedBody(t *testing.T) {
	r := testkit.NewReceiver(t)
	a := &activities.Notices{Webhook: webhook.Sender{Secret: testSecret, AllowedURLs: []string{r.URL + "/hooks/"}}}
	out, err := notify(t, a, stepInput(r.URL+"/hooks/plan"))
	require.NoError(t, err)
	assert.Equal(t, activities.NotifyOutput{Sent: true, StatusCode: http.StatusOK}, out)

	got := r.Deliveries()
	require.Len(t, got, 1)
	h := got[0].Header
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "step-completed", h.Get(webhook.HeaderEvent))
	assert.Equal(t, "plan-1/step-completed/2", h.Get(webhook.HeaderIdempotencyKey))
	assert.True(t, strings.HasPrefix(h.Get(webhook.HeaderSignature), "sha256="))
	assert.True(t, webhook.VerifySignature(testSecret, got[0].Body, h.Get(webhook.HeaderSignature)))
	assert.JSONEq(t, `{"event":"step-completed","workflowId":"plan-1","runId":"run-1","phase":"executing",
		"at":"2026-05-01T12:00:00Z","data":{"step":{"id":"s2","number":2,"title":"Write tests"},"percent":40}}`,
		string(got[0].Body))
}

func TestNotifyUsesTheWorkerURLWhenThePlanNamesNone(t *testing.T) {
	r := testkit.NewReceiver(t)
	a := &activities.Notices{Webhook: webhook.Sender{URL: r.URL}}
	in := stepInput("")
	in.IdempotencyKey = ""
	out, err := notify(t, a, in)
	require.NoError(t, err)
	assert.True(t, out.Sent)
	got := r.Deliveries()
	require.Len(t, got, 1)
	assert.Empty(t, got[0].Header.Get(webhook.HeaderSignature), "no secret, no signature")
	assert.NotEmpty(t, got[0].Header.Get(webhook.HeaderIdempotencyKey), "a key derived from the activity")
	assert.Contains(t, got[0].Header.Get(webhook.HeaderIdempotencyKey), "/step-completed/")
}

func TestNotifyWithoutURLDoesNothingAndSaysSo(t *testing.T) {
	out, err := notify(t, &activities.Notices{}, stepInput(""))
	require.NoError(t, err)
	assert.Equal(t, activities.NotifyOutput{NoReceiver: true}, out, "the workflow stops scheduling deliveries")
}

func TestReceiverSaysWhetherTheWorkerHasAWebhook(t *testing.T) {
	none, err := (&activities.Notices{}).Receiver(context.Background())
	require.NoError(t, err)
	assert.True(t, none.None, "no webhook configured")
	some, err := (&activities.Notices{Webhook: webhook.Sender{URL: "https://hooks.example.com/p"}}).Receiver(context.Background())
	require.NoError(t, err)
	assert.False(t, some.None)
}

func TestNotifyRetriesFailuresUnderOneKey(t *testing.T) {
	r := testkit.NewReceiver(t, http.StatusServiceUnavailable, http.StatusTooManyRequests)
	a := &activities.Notices{Webhook: webhook.Sender{Secret: testSecret, AllowedURLs: []string{r.URL}}}
	in := stepInput(r.URL)

	// The test environment does not retry: each call stands for one attempt.
	for i, wantDelay := range []time.Duration{0, 7 * time.Second} {
		_, err := notify(t, a, in)
		ae := appErr(t, err)
		assert.False(t, ae.NonRetryable(), "attempt %d", i+1)
		assert.Equal(t, activities.ErrorTypeWebhookFailed, ae.Type())
		assert.Equal(t, wantDelay, ae.NextRetryDelay(), "attempt %d honours Retry-After", i+1)
	}
	out, err := notify(t, a, in)
	require.NoError(t, err)
	assert.True(t, out.Sent)

	got := r.Deliveries()
	require.Len(t, got, 3)
	for _, d := range got {
		assert.Equal(t, "plan-1/step-completed/2", d.Header.Get(webhook.HeaderIdempotencyKey))
		assert.Equal(t, string(got[0].Body), string(d.Body), "every attempt sends the same body")
		assert.True(t, webhook.VerifySignature(testSecret, d.Body, d.Header.Get(webhook.HeaderSignature)))
	}
}

func TestNotifyRefusalsAreNonRetryable(t *testing.T) {
	r := testkit.NewReceiver(t, http.StatusBadRequest)
	for _, url := range []string{r.URL, "ftp://127.0.0.1/x?token=topsecret"} {
		out, err := notify(t, &activities.Notices{}, stepInput(url))
		ae := appErr(t, err)
		assert.True(t, ae.NonRetryable(), url)
		assert.Equal(t, activities.ErrorTypeWebhookRejected, ae.Type(), url)
		assert.False(t, out.Sent)
		assert.NotContains(t, err.Error(), "topsecret")
	}
}

func TestNotifyBodyDecodes(t *testing.T) {
	r := testkit.NewReceiver(t)
	in := stepInput(r.URL)
	in.Event, in.Phase = webhook.EventCompleted, plan.PhaseCompleted
	in.Data = activities.NotifyData{Status: signals.StatusCompleted, Summary: "done"}
	_, err := notify(t, &activities.Notices{Webhook: webhook.Sender{AllowedURLs: []string{r.URL}}}, in)
	require.NoError(t, err)

	var body webhook.Body
	require.NoError(t, json.Unmarshal(r.Deliveries()[0].Body, &body))
	assert.Equal(t, webhook.Body{Event: webhook.EventCompleted, WorkflowID: "plan-1", RunID: "run-1",
		Phase: plan.PhaseCompleted, At: in.At, Data: in.Data}, body)
}
