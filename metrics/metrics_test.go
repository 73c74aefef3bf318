package metrics

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/client"
)

// recorder is a client.MetricsHandler that writes every recording as a
// line "name{k=v,...} value".
type recorder struct {
	tags  map[string]string
	lines *[]string
}

func newRecorder() recorder { return recorder{tags: map[string]string{}, lines: new([]string)} }

func (r recorder) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(r.tags)
	maps.Copy(merged, tags)
	return recorder{tags: merged, lines: r.lines}
}

func (r recorder) record(name string, v any) {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(r.tags)) {
		kv = append(kv, k+"="+r.tags[k])
	}
	*r.lines = append(*r.lines, fmt.Sprintf("%s{%s} %v", name, strings.Join(kv, ","), v))
}

func (r recorder) Counter(name string) client.MetricsCounter {
	return counterFunc(func(v int64) { r.record(name, v) })
}

func (r recorder) Gauge(string) client.MetricsGauge { panic("planmode records no gauges") }

func (r recorder) Timer(name string) client.MetricsTimer {
	return timerFunc(func(d time.Duration) { r.record(name, d) })
}

type counterFunc func(int64)

func (f counterFunc) Inc(v int64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }

func TestHelpersRecordNamesTagsAndValues(t *testing.T) {
	cases := []struct {
		name   string
		record func(h client.MetricsHandler)
		want   []string
	}{
		{"plan started", PlanStarted, []string{"planmode_plans_started{} 1"}},
		{"plan finished", func(h client.MetricsHandler) { PlanFinished(h, "failed") },
			[]string{"planmode_plans_finished{status=failed} 1"}},
		{"step", func(h client.MetricsHandler) { StepFinished(h, "agent", "completed", 3*time.Second) },
			[]string{"planmode_steps{action=agent,status=completed} 1", "planmode_step_duration{action=agent,status=completed} 3s"}},
		{"llm call", func(h client.MetricsHandler) {
			RecordLLMCall(h, LLMCall{Phase: "reflect", Model: "m", Duration: time.Second, InputTokens: 10, OutputTokens: 2, CostUSD: 0.0000015})
		}, []string{
			"planmode_llm_call_duration{model=m,phase=reflect} 1s",
			"planmode_llm_tokens{kind=input,model=m,phase=reflect} 10",
			"planmode_llm_tokens{kind=output,model=m,phase=reflect} 2",
			"planmode_llm_cost_microusd{model=m,phase=reflect} 2",
		}},
		{"offline call costs nothing", func(h client.MetricsHandler) {
			RecordLLMCall(h, LLMCall{Phase: "plan", Model: "offline", Duration: time.Millisecond})
		}, []string{"planmode_llm_call_duration{model=offline,phase=plan} 1ms"}},
		{"webhook", func(h client.MetricsHandler) { WebhookDelivered(h, OutcomeOK) },
			[]string{"planmode_webhook_deliveries{outcome=ok} 1"}},
		{"command", func(h client.MetricsHandler) { CommandRan(h, OutcomeTimeout) },
			[]string{"planmode_commands_run{outcome=timeout} 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder()
			tc.record(r)
			assert.Equal(t, tc.want, *r.lines)
		})
	}
}

func TestTagsOfTheContextAreKept(t *testing.T) {
	r := newRecorder()
	PlanFinished(r.WithTags(map[string]string{"workflow_type": "PlanMode"}), "completed")
	assert.Equal(t, []string{"planmode_plans_finished{status=completed,workflow_type=PlanMode} 1"}, *r.lines)
}

func TestNilHandlerRecordsNothing(t *testing.T) {
	assert.NotPanics(t, func() {
		PlanStarted(nil)
		PlanFinished(nil, "completed")
		StepFinished(nil, "llm", "completed", time.Second)
		RecordLLMCall(nil, LLMCall{InputTokens: 1})
		WebhookDelivered(nil, OutcomeOK)
		CommandRan(nil, OutcomeOK)
	})
}
