package signals_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

func TestAwaitEventsRequestValidate(t *testing.T) {
	tests := []struct {
		name    string
		req     signals.AwaitEventsRequest
		wantErr string
	}{
		{"from the start", signals.AwaitEventsRequest{}, ""},
		{"after some", signals.AwaitEventsRequest{After: 42, Max: 10}, ""},
		{"max at the bound", signals.AwaitEventsRequest{Max: signals.MaxEventsPerReply}, ""},
		{"negative after", signals.AwaitEventsRequest{After: -1}, "after is -1"},
		{"negative max", signals.AwaitEventsRequest{Max: -1}, "max is -1"},
		{"max over the bound", signals.AwaitEventsRequest{Max: signals.MaxEventsPerReply + 1}, "max is 101: want 0..100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
	assert.Equal(t, signals.MaxEventsPerReply, signals.AwaitEventsRequest{}.Limit(), "0 takes the bound")
	assert.Equal(t, 7, signals.AwaitEventsRequest{Max: 7}.Limit())
}

func TestAwaitEventsDecodesStrictly(t *testing.T) {
	tests := []struct {
		name, raw, wantErr string
	}{
		{"empty", ``, ""},
		{"fields", `{"after": 3, "max": 5}`, ""},
		{"unknown field", `{"afterSeq": 3}`, "unknown field"},
		{"negative", `{"after": -2}`, "after is -2"},
		{"not a number", `{"after": "3"}`, "bad payload"},
		{"trailing data", `{"after": 3} {}`, "data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := signals.AwaitEvents.Decode(json.RawMessage(tt.raw))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), "await-events")
		})
	}
}

func TestEventBounded(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", signals.MaxEventDataBytes) + `"}`
	atBound := `"` + strings.Repeat("y", signals.MaxEventDataBytes-2) + `"`
	tests := []struct {
		name        string
		in          signals.Event
		wantMessage string
		wantData    string
	}{
		{"small stays", signals.Event{Message: "hi", Data: json.RawMessage(`{"a":1}`)}, "hi", `{"a":1}`},
		{"data at the bound stays", signals.Event{Data: json.RawMessage(atBound)}, "", atBound},
		{"data over the bound is replaced", signals.Event{Data: json.RawMessage(big)}, "",
			`{"truncated":true,"bytes":` + itoa(len(big)) + `}`},
		{"message at the bound stays", signals.Event{Message: strings.Repeat("m", signals.MaxEventMessageBytes)},
			strings.Repeat("m", signals.MaxEventMessageBytes), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.Bounded()
			assert.Equal(t, tt.wantMessage, got.Message)
			assert.Equal(t, tt.wantData, string(got.Data))
		})
	}

	// A long message is cut on a rune boundary, within the bound.
	long := strings.Repeat("é", signals.MaxEventMessageBytes)
	got := signals.Event{Message: long}.Bounded()
	assert.LessOrEqual(t, len(got.Message), signals.MaxEventMessageBytes)
	assert.True(t, utf8.ValidString(got.Message))
	assert.True(t, strings.HasSuffix(got.Message, "…"))

	// Bounded leaves the original alone.
	in := signals.Event{Data: json.RawMessage(big)}
	_ = in.Bounded()
	assert.Equal(t, big, string(in.Data))
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestEventJSONFieldNames(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	full := signals.Event{Seq: 4, At: at, Type: signals.EventStepStarted, PlanID: "plan-1",
		Step: &signals.StepRef{ID: "s1", Number: 1, Title: "Read"}, Message: "step 1 started", Data: json.RawMessage(`{"k":"v"}`)}
	b, err := json.Marshal(full)
	require.NoError(t, err)
	assert.JSONEq(t, `{"seq":4,"at":"2026-01-02T03:04:05Z","type":"step-started","planId":"plan-1",
		"step":{"id":"s1","number":1,"title":"Read"},"message":"step 1 started","data":{"k":"v"}}`, string(b))

	b, err = json.Marshal(signals.Event{Seq: 1, At: at, Type: signals.EventPaused})
	require.NoError(t, err)
	assert.JSONEq(t, `{"seq":1,"at":"2026-01-02T03:04:05Z","type":"paused"}`, string(b), "empty fields are left out")

	b, err = json.Marshal(signals.AwaitEventsResponse{Events: []signals.Event{}, Ended: true, Status: signals.StatusCompleted})
	require.NoError(t, err)
	assert.JSONEq(t, `{"events":[],"ended":true,"status":"completed"}`, string(b))
	b, err = json.Marshal(signals.AwaitEventsRequest{After: 3, Max: 2})
	require.NoError(t, err)
	assert.JSONEq(t, `{"after":3,"max":2}`, string(b))
}

// TestEventTypesShareTheWebhookVocabulary: an event that is also a webhook
// event has the webhook's name.
func TestEventTypesShareTheWebhookVocabulary(t *testing.T) {
	shared := map[signals.EventType]webhook.Event{
		signals.EventStepStarted:       webhook.EventStepStarted,
		signals.EventStepCompleted:     webhook.EventStepCompleted,
		signals.EventStepFailed:        webhook.EventStepFailed,
		signals.EventPlanUpdated:       webhook.EventPlanUpdated,
		signals.EventPaused:            webhook.EventPaused,
		signals.EventResumed:           webhook.EventResumed,
		signals.EventBudgetExceeded:    webhook.EventBudgetExceeded,
		signals.EventApprovalRequested: webhook.EventApprovalRequested,
		signals.EventApprovalDecided:   webhook.EventApprovalDecided,
	}
	for ev, hook := range shared {
		assert.Equal(t, string(hook), string(ev))
	}

	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[signals.EventType]bool{}
	for _, ev := range signals.EventTypes {
		assert.Regexp(t, kebab, string(ev))
		assert.False(t, seen[ev], "%s is listed twice", ev)
		seen[ev] = true
	}
	assert.Len(t, seen, 26)
}
