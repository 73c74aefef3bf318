package planclient

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/mocks"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/planmode/planmode/signals"
)

// details encodes heartbeat details with dc.
func details(t *testing.T, dc converter.DataConverter, v ...any) *commonpb.Payloads {
	t.Helper()
	p, err := dc.ToPayloads(v...)
	require.NoError(t, err)
	return p
}

// pending is a pending activity of type typ, in state, of attempt,
// started at started and last heartbeating at beat with hb.
func pending(id, typ string, state enumspb.PendingActivityState, attempt int32, started, beat time.Time,
	hb *commonpb.Payloads) *workflowpb.PendingActivityInfo {
	pa := &workflowpb.PendingActivityInfo{ActivityId: id, ActivityType: &commonpb.ActivityType{Name: typ}, State: state,
		Attempt: attempt, HeartbeatDetails: hb}
	if !started.IsZero() {
		pa.LastStartedTime = timestamppb.New(started)
	}
	if !beat.IsZero() {
		pa.LastHeartbeatTime = timestamppb.New(beat)
	}
	return pa
}

func TestRunningTextReadsTheModelCallsHeartbeats(t *testing.T) {
	dc := converter.GetDefaultDataConverter()
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	beat := start.Add(time.Second)
	step := signals.ModelText{Phase: "execute", StepID: "s1", Bytes: 11, Text: "Hello world"}
	options := signals.ModelText{Phase: "plan", Bytes: 2, Text: "{}"}
	desc := &workflowservice.DescribeWorkflowExecutionResponse{PendingActivities: []*workflowpb.PendingActivityInfo{
		pending("5", "ExecuteLLMStep", enumspb.PENDING_ACTIVITY_STATE_STARTED, 1, start, beat, details(t, dc, step)),
		pending("6", "Summarize", enumspb.PENDING_ACTIVITY_STATE_STARTED, 1, start, beat,
			details(t, dc, "waiting for the LLM: summarize")),
		pending("7", "RunTool", enumspb.PENDING_ACTIVITY_STATE_STARTED, 1, start, beat, details(t, dc, map[string]int{"bytes": 3})),
		pending("8", "Reflect", enumspb.PENDING_ACTIVITY_STATE_SCHEDULED, 2, time.Time{}, beat, details(t, dc, step)),
		pending("9", "AgentTurn", enumspb.PENDING_ACTIVITY_STATE_STARTED, 2, beat.Add(time.Minute), beat, details(t, dc, step)),
		pending("10", "AgentTurn", enumspb.PENDING_ACTIVITY_STATE_STARTED, 1, start, time.Time{}, nil),
		pending("11", "GenerateOptions", enumspb.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED, 3, start, beat, details(t, dc, options)),
	}}
	tc := mocks.NewClient(t)
	tc.On("DescribeWorkflow", context.Background(), "plan-1", "").Return(&client.WorkflowExecutionDescription{RawResponse: desc}, nil).Once()

	calls, err := New(tc).RunningText(context.Background(), "plan-1")
	require.NoError(t, err)
	assert.Equal(t, []RunningCall{
		{ActivityID: "5", ActivityType: "ExecuteLLMStep", Attempt: 1, Text: step},
		{ActivityID: "11", ActivityType: "GenerateOptions", Attempt: 3, Text: options},
	}, calls, "the ticker's strings, a tool's details, a retry waiting and an earlier attempt's details are left out")
}

func TestRunningTextDecodesWithTheClientsConverter(t *testing.T) {
	zipped := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(),
		converter.NewZlibCodec(converter.ZlibCodecOptions{AlwaysEncode: true}))
	text := signals.ModelText{Phase: "agent", StepID: "s2", Bytes: 5, Text: "hello"}
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	desc := &workflowservice.DescribeWorkflowExecutionResponse{PendingActivities: []*workflowpb.PendingActivityInfo{
		pending("3", "AgentTurn", enumspb.PENDING_ACTIVITY_STATE_STARTED, 1, start, start, details(t, zipped, text)),
	}}
	tc := mocks.NewClient(t)
	tc.On("DescribeWorkflow", context.Background(), "plan-1", "").Return(&client.WorkflowExecutionDescription{RawResponse: desc}, nil).Twice()

	calls, err := New(tc).RunningText(context.Background(), "plan-1")
	require.NoError(t, err)
	assert.Empty(t, calls, "the default converter cannot read encoded details: left out")

	calls, err = New(tc, WithDataConverter(zipped)).RunningText(context.Background(), "plan-1")
	require.NoError(t, err)
	assert.Equal(t, []RunningCall{{ActivityID: "3", ActivityType: "AgentTurn", Attempt: 1, Text: text}}, calls)
}

func TestRunningTextOfAnUnknownPlan(t *testing.T) {
	tc := mocks.NewClient(t)
	tc.On("DescribeWorkflow", context.Background(), "nope", "").
		Return(nil, serviceerror.NewNotFound("workflow not found")).Once()
	_, err := New(tc).RunningText(context.Background(), "nope")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "plan nope: describe: "), err.Error())
	var nf *serviceerror.NotFound
	assert.ErrorAs(t, err, &nf)
}

// call is a running call of activity id in attempt whose text so far is
// whole, as a heartbeat tells it: all its bytes and the last tail of them.
func call(id string, attempt int32, whole string, tail int) RunningCall {
	return RunningCall{ActivityID: id, ActivityType: "ExecuteLLMStep", Attempt: attempt, Text: signals.ModelText{
		Phase: "execute", StepID: "s1", Bytes: int64(len(whole)), Text: whole[max(0, len(whole)-tail):]}}
}

// delta is the delta of activity id's attempt with text.
func delta(id string, attempt int32, text string) signals.ModelTextDelta {
	return signals.ModelTextDelta{Phase: "execute", StepID: "s1", ActivityID: id, Attempt: attempt, Text: text}
}

func TestTextDeltas(t *testing.T) {
	const big = 1 << 20 // a tail that holds everything
	restarted := func(d signals.ModelTextDelta) signals.ModelTextDelta { d.Restarted = true; return d }
	skipped := func(d signals.ModelTextDelta, n int64) signals.ModelTextDelta { d.Skipped = n; return d }
	tests := []struct {
		name  string
		prev  map[string]TextSeen
		calls []RunningCall
		want  []signals.ModelTextDelta
		next  map[string]TextSeen
	}{
		{name: "nothing running", next: map[string]TextSeen{}},
		{name: "first look: the text from the start", calls: []RunningCall{call("5", 1, "Hello", big)},
			want: []signals.ModelTextDelta{delta("5", 1, "Hello")}, next: map[string]TextSeen{"5": {1, 5}}},
		{name: "first look at a call with no text yet", calls: []RunningCall{call("5", 1, "", big)},
			next: map[string]TextSeen{"5": {1, 0}}},
		{name: "first look past the tail", calls: []RunningCall{call("5", 1, "Hello world", 5)},
			want: []signals.ModelTextDelta{skipped(delta("5", 1, "world"), 6)}, next: map[string]TextSeen{"5": {1, 11}}},
		{name: "first look at a retry", calls: []RunningCall{call("5", 2, "Hel", big)},
			want: []signals.ModelTextDelta{restarted(delta("5", 2, "Hel"))}, next: map[string]TextSeen{"5": {2, 3}}},
		{name: "the text grew", prev: map[string]TextSeen{"5": {1, 5}}, calls: []RunningCall{call("5", 1, "Hello world", big)},
			want: []signals.ModelTextDelta{delta("5", 1, " world")}, next: map[string]TextSeen{"5": {1, 11}}},
		{name: "the text grew past the tail", prev: map[string]TextSeen{"5": {1, 2}},
			calls: []RunningCall{call("5", 1, "Hello world", 4)},
			want:  []signals.ModelTextDelta{skipped(delta("5", 1, "orld"), 5)}, next: map[string]TextSeen{"5": {1, 11}}},
		{name: "the text grew by the whole tail", prev: map[string]TextSeen{"5": {1, 7}},
			calls: []RunningCall{call("5", 1, "Hello world", 4)},
			want:  []signals.ModelTextDelta{delta("5", 1, "orld")}, next: map[string]TextSeen{"5": {1, 11}}},
		{name: "nothing new", prev: map[string]TextSeen{"5": {1, 5}}, calls: []RunningCall{call("5", 1, "Hello", big)},
			next: map[string]TextSeen{"5": {1, 5}}},
		{name: "a new attempt starts over", prev: map[string]TextSeen{"5": {1, 11}}, calls: []RunningCall{call("5", 2, "Hi", big)},
			want: []signals.ModelTextDelta{restarted(delta("5", 2, "Hi"))}, next: map[string]TextSeen{"5": {2, 2}}},
		{name: "a new attempt with no text yet", prev: map[string]TextSeen{"5": {1, 11}},
			calls: []RunningCall{call("5", 2, "", big)},
			want:  []signals.ModelTextDelta{restarted(delta("5", 2, ""))}, next: map[string]TextSeen{"5": {2, 0}}},
		{name: "a new attempt past the tail", prev: map[string]TextSeen{"5": {1, 3}},
			calls: []RunningCall{call("5", 2, "Hello world", 5)},
			want:  []signals.ModelTextDelta{skipped(restarted(delta("5", 2, "world")), 6)}, next: map[string]TextSeen{"5": {2, 11}}},
		{name: "a shrunk text starts over", prev: map[string]TextSeen{"5": {1, 11}}, calls: []RunningCall{call("5", 1, "Hey", big)},
			want: []signals.ModelTextDelta{restarted(delta("5", 1, "Hey"))}, next: map[string]TextSeen{"5": {1, 3}}},
		{name: "several calls, in order; an ended one is forgotten",
			prev:  map[string]TextSeen{"5": {1, 2}, "6": {1, 4}},
			calls: []RunningCall{call("7", 1, "new", big), call("5", 1, "abcd", big)},
			want:  []signals.ModelTextDelta{delta("7", 1, "new"), delta("5", 1, "cd")},
			next:  map[string]TextSeen{"5": {1, 4}, "7": {1, 3}}},
		{name: "runes stay whole", prev: map[string]TextSeen{"5": {1, len64("Déjà")}},
			calls: []RunningCall{call("5", 1, "Déjà vu ✓", big)},
			want:  []signals.ModelTextDelta{delta("5", 1, " vu ✓")}, next: map[string]TextSeen{"5": {1, len64("Déjà vu ✓")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next := TextDeltas(tt.prev, tt.calls)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.next, next)
		})
	}
}

func TestTextDeltasFollowACallToItsEnd(t *testing.T) {
	whole := strings.Repeat("Déjà vu — ✓ ", 40)
	var seen map[string]TextSeen
	var got strings.Builder
	look := func(n int) {
		var deltas []signals.ModelTextDelta
		deltas, seen = TextDeltas(seen, []RunningCall{call("5", 1, whole[:n], 64)})
		for _, d := range deltas {
			assert.Zero(t, d.Skipped, "looks closer than the tail miss nothing")
			assert.False(t, d.Restarted)
			got.WriteString(d.Text)
		}
	}
	for n := 0; n < len(whole); n += 7 {
		for n < len(whole) && !utf8.RuneStart(whole[n]) {
			n++
		}
		look(n)
	}
	look(len(whole))
	assert.Equal(t, whole, got.String(), "the deltas are the text, in order")
}

// len64 is the length of s as an int64.
func len64(s string) int64 { return int64(len(s)) }
