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

}

// TestEventTypesShareTheWebhookVocabulary: every webhook event is the
// delivery of a log event, under the log event's name but for the three
// the webhook names otherwise; every type is kebab-case and listed once.
func TestEventTypesShareTheWebhookVocabulary(t *testing.T) {
	renamed := map[signals.EventType]webhook.Event{
		signals.EventOptionsReady: webhook.EventPlanCreated,
		signals.EventBudgetRaised: webhook.EventPlanUpdated,
	}
	delivered := map[webhook.Event]bool{}
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[signals.EventType]bool{}
	for _, ev := range signals.EventTypes {
		assert.Regexp(t, kebab, string(ev))
		assert.False(t, seen[ev], "%s is listed twice", ev)
		seen[ev] = true
		hook, ok := webhook.FromLog(ev, signals.StatusCompleted)
		if !ok {
			continue
		}
		delivered[hook] = true
		if want, ok := renamed[ev]; ok {
			assert.Equal(t, want, hook)
		} else if ev != signals.EventEnded {
			assert.Equal(t, string(ev), string(hook), "%s keeps its name", ev)
		}
	}
	assert.Len(t, seen, 29)
	for _, st := range []signals.Status{signals.StatusFailed, signals.StatusCancelled} {
		hook, ok := webhook.FromLog(signals.EventEnded, st)
		require.True(t, ok)
		delivered[hook] = true
	}
	for _, hook := range []webhook.Event{webhook.EventPlanCreated, webhook.EventAwaitingSelection,
		webhook.EventAwaitingClarification, webhook.EventAwaitingConfirmation, webhook.EventStepStarted,
		webhook.EventStepCompleted, webhook.EventStepFailed, webhook.EventPlanUpdated, webhook.EventPaused,
		webhook.EventResumed, webhook.EventBudgetExceeded, webhook.EventApprovalRequested,
		webhook.EventApprovalReminder, webhook.EventApprovalDecided, webhook.EventCompleted, webhook.EventFailed,
		webhook.EventCancelled} {
		assert.True(t, delivered[hook], "webhook %s comes from the log", hook)
	}
}
