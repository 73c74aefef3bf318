package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// requireRejectedAs asserts that the update was refused with a
// non-retryable application error of type typ.
func requireRejectedAs[Resp any](t *testing.T, o *outcome[Resp], typ string) {
	t.Helper()
	require.True(t, o.done, "update got no answer")
	require.Error(t, o.rejected, "update was not rejected")
	var app *temporal.ApplicationError
	require.ErrorAs(t, o.rejected, &app, "the refusal is an application error")
	assert.Equal(t, typ, app.Type(), app.Message())
	assert.True(t, app.NonRetryable(), "retrying the same input cannot help")
	assert.True(t, signals.IsRejected(o.rejected))
}

// rejectedAs holds an update's outcome, whatever its answer type, and
// the rejection type it should have been refused with.
type rejectedAs struct {
	check func(t *testing.T, typ string)
	want  string
}

// expect wraps o for TestRejectedUpdatesAreTyped.
func expect[Resp any](o *outcome[Resp], want string) rejectedAs {
	return rejectedAs{check: func(t *testing.T, typ string) { requireRejectedAs(t, o, typ) }, want: want}
}

func TestRejectedUpdatesAreTyped(t *testing.T) {
	h := newHarness(t)
	cases := map[string]rejectedAs{}
	h.at(30*time.Second, func() {
		cases["unknown option id"] = expect(update(h, signals.SelectOption, signals.SelectOptionRequest{OptionID: "o9"}), signals.ErrorTypeUnknownOption)
		cases["unknown rank"] = expect(update(h, signals.SelectOption, signals.SelectOptionRequest{Rank: 9}), signals.ErrorTypeUnknownOption)
		cases["no option named"] = expect(update(h, signals.SelectOption, signals.SelectOptionRequest{}), signals.ErrorTypeInvalidInput)
		cases["refine without feedback"] = expect(update(h, signals.RefinePlan, signals.RefinePlanRequest{}), signals.ErrorTypeInvalidInput)
		cases["resume when not paused"] = expect(update(h, signals.Resume, signals.ControlRequest{}), signals.ErrorTypeWrongPhase)
		cases["answers without questions"] = expect(update(h, signals.AnswerClarification,
			signals.AnswerClarificationRequest{Answers: map[string]string{"q": "a"}}), signals.ErrorTypeWrongPhase)
		cases["unknown skip request"] = expect(update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-9"}), signals.ErrorTypeUnknownRequest)
		cases["edit before selection"] = expect(update(h, signals.EditPlan,
			signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s1"}}}), signals.ErrorTypeWrongPhase)
		cases["reason too long"] = expect(update(h, signals.Pause,
			signals.ControlRequest{Reason: string(make([]byte, signals.MaxTextBytes+1))}), signals.ErrorTypeTooLarge)
	})
	h.selectAt(time.Minute)
	h.at(stepTime+90*time.Second, func() {
		cases["edit of no step"] = expect(update(h, signals.EditPlan,
			signals.EditPlanRequest{Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "nope"}}}), signals.ErrorTypeInvalidEdit)
	})
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	require.Len(t, cases, 10)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { c.check(t, c.want) })
	}
}

// rawSignal sends payload as the signal name's only argument, untouched
// by the data converter.
func rawSignal(h *harness, name, encoding, data string) {
	h.env.SignalWorkflow(name, converter.NewRawValue(&commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encoding)},
		Data:     []byte(data),
	}))
}

func TestUndecodableSignalsAreRecordedNotDropped(t *testing.T) {
	h := newHarness(t)
	var pending signals.Pending
	var details string
	h.at(30*time.Second, func() {
		rawSignal(h, signals.SelectOption.Name, converter.MetadataEncodingJSON, `{"rank": 1`)
		rawSignal(h, signals.Pause.Name, "binary/plain", "pause now")
		rawSignal(h, signals.RefinePlan.Name, "binary/encrypted", "\x00\x01secret")
		signal(h, signals.SelectOption, "first")
	})
	h.at(40*time.Second, func() {
		pending = query(h, signals.PendingQuery)
		details = currentDetails(h)
	})
	h.selectAt(time.Minute)
	res := h.run(manualReq())
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	require.Len(t, pending.Rejected, 4, "every bad payload is listed: %+v", pending.Rejected)
	assert.True(t, hasRejection(pending, signals.SelectOption.Name, "payload is not valid JSON"))
	assert.Equal(t, `{"rank": 1`, pending.Rejected[0].Payload)
	assert.True(t, hasRejection(pending, signals.Pause.Name, `payload is not JSON (encoding "binary/plain")`))
	assert.Equal(t, "pause now", pending.Rejected[1].Payload)
	assert.True(t, hasRejection(pending, signals.RefinePlan.Name, `encoding "binary/encrypted"`))
	assert.True(t, hasRejection(pending, signals.SelectOption.Name, "bad payload"), "a JSON value of the wrong type")
	for _, r := range pending.Rejected {
		assert.NotContains(t, r.Reason, "retryable", "the reason reads as a person writes it")
	}
	assert.Contains(t, details, "bad payload", "the Web UI shows the last rejection")
	assert.Equal(t, "r1-o1", res.SelectedOptionID, "a good signal after the bad ones still counts")
}
