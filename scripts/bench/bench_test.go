package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sectionMetrics are the metrics every case of a section reports.
var sectionMetrics = map[string][]string{
	secRatio:   {"planmode ms/step", "bare ms/step", "ratio"},
	secHistory: {"bytes/step", "events/step", "runs", "bare bytes/step"},
	secCPU:     {"planmode µs/step", "bare µs/step", "ratio"},
	secTokens:  {"execute prompt tokens/step", "reflect prompt tokens/step", "summarize prompt tokens/plan"},
	// A handed-in plan asks no clarification and no options: those
	// phases report zero, so only the others must be positive.
	secAgentPlan: {"execute prompt tokens", "reflect prompt tokens", "summarize prompt tokens", "total prompt tokens",
		"reflection calls"},
	secConcurrency: {"planmode plans/s", "bare plans/s", "ratio", "worker process plans/s",
		"worker RSS peak MiB", "worker RSS end MiB"},
	secFairness:  {"alone p50 ms", "alone max ms", "beside p50 ms", "beside max ms", "ratio"},
	secMemory:    {"worker RSS MiB", "KiB per plan"},
	secLatency:   {"select p50 ms", "select p99 ms", "progress p50 ms", "progress p99 ms", "standing p50 ms", "standing p99 ms"},
	secFollow:    {"step→follower p50 ms", "step→follower p99 ms", "followers failed", "select p99 ms"},
	secFollowers: {"0 followers s", "20 followers s", "ratio"},
	secStream:    {"bytes/step streaming off", "bytes/step streaming on", "ratio"},
	secBurst: {"time to last start s", "start p50 ms", "start p99 ms", "start→options p50 ms", "start→options p99 ms",
		"bare time to last start s", "bare start p50 ms", "bare start p99 ms"},
	secWorkspace: {"first record ms", "record ms/step", "bytes stored/step", "files hashed/step", "store growth bytes/step",
		"hydrate ms", "hydrate MB/s",
		"dedup ratio (10 forks)"},
}

// casesOf is how many cases each section reports at sz.
func casesOf(sz sizes) map[string]int {
	return map[string]int{secRatio: 1, secHistory: len(sz.HistorySteps), secCPU: len(sz.CPUSteps), secTokens: len(sz.TokenSteps), secAgentPlan: 1,
		secConcurrency: len(sz.Concurrent), secFairness: 1, secMemory: 1, secLatency: len(sz.LatencyVariants), secWorkspace: 1,
		secFollow: 1, secFollowers: 4, secStream: 1, secBurst: 1}
}

// TestQuickBenchReportsEveryRow runs the whole instrument at the quick
// sizes against its own dev server and a worker process, and checks that
// the table has every section's every case with a number in each metric.
func TestQuickBenchReportsEveryRow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and worker processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sz := sizesFor(true)
	var log bytes.Buffer
	rep, err := run(ctx, sz, allSections, false, &log)
	require.NoError(t, err, log.String())

	byCase := map[string]map[string]map[string]float64{}
	for _, x := range rep.Rows {
		if byCase[x.Section] == nil {
			byCase[x.Section] = map[string]map[string]float64{}
		}
		if byCase[x.Section][x.Case] == nil {
			byCase[x.Section][x.Case] = map[string]float64{}
		}
		byCase[x.Section][x.Case][x.Metric] = x.Value
	}
	for section, n := range casesOf(sz) {
		assert.Len(t, byCase[section], n, "cases of %s", section)
		for kase, metrics := range byCase[section] {
			for _, m := range sectionMetrics[section] {
				v, ok := metrics[m]
				if assert.True(t, ok, "%s / %s has %s", section, kase, m) {
					// A count of failures is a number too, and zero is the
					// one it should be.
					positive := v > 0 || (strings.HasSuffix(m, " failed") && v == 0)
					assert.True(t, positive && !math.IsInf(v, 0) && !math.IsNaN(v), "%s / %s / %s = %v", section, kase, m, v)
				}
			}
		}
	}
	assert.Equal(t, 1.0, byCase[secHistory]["10 steps"]["runs"], "a 10-step plan needs no continue-as-new")

	var out bytes.Buffer
	rep.print(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2+1+len(rep.Rows), "title, blank line, header and one line a row:\n%s", out.String())
	for i, x := range rep.Rows {
		assert.Contains(t, lines[3+i], x.Metric)
		assert.Contains(t, lines[3+i], formatValue(x.Value))
	}
}

func TestParseSections(t *testing.T) {
	got, err := parseSections("")
	require.NoError(t, err)
	assert.Equal(t, allSections, got)
	got, err = parseSections(" latency,history,latency")
	require.NoError(t, err)
	assert.Equal(t, []string{secLatency, secHistory}, got)
	_, err = parseSections("histroy")
	assert.ErrorContains(t, err, `unknown section "histroy"`)
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{12345.6: "12,346", 3: "3", 250.4: "250", 17.44: "17.4", 1.234: "1.23",
		-2048: "-2,048", math.NaN(): "n/a"} {
		assert.Equal(t, want, formatValue(v), "%v", v)
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	assert.Equal(t, 50*time.Millisecond, percentile(ds, 50))
	assert.Equal(t, 99*time.Millisecond, percentile(ds, 99))
	assert.Equal(t, 3*time.Millisecond, percentile([]time.Duration{3 * time.Millisecond}, 99))
	assert.Zero(t, percentile(nil, 50))
}
