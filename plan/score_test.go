package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func option(id string, c Complexity, conf float64, steps, pros, cons int, risks ...Risk) Option {
	p := chain(steps)
	p.Estimates = Estimates{Complexity: c, Confidence: conf, Duration: Duration(45 * time.Minute)}
	p.Risks = risks
	o := Option{ID: id, Title: "Option " + id, Plan: p}
	for range pros {
		o.Pros = append(o.Pros, "pro")
	}
	for range cons {
		o.Cons = append(o.Cons, "con")
	}
	return o
}

func TestScore(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want float64
	}{
		{"seed formula, short plan", option("a", ComplexityMedium, 0.8, 3, 2, 1), 22.5 + 24 + 7 + 15},
		{"perfect option reaches 100", option("a", ComplexityLow, 1, 2, 5, 0), 100},
		{"pros count up to five", option("a", ComplexityLow, 1, 2, 9, 0), 100},
		{"risk subtracts impact×likelihood×5", option("a", ComplexityHigh, 0.5, 20, 0, 0,
			Risk{Impact: ImpactCritical, Likelihood: LikelihoodHigh}, Risk{Impact: ImpactLow, Likelihood: LikelihoodLow}), 15 + 15 - 5.3},
		{"brevity falls with length", option("a", ComplexityVeryHigh, 0, 12, 0, 0), 7.5 + 7.1},
		{"clamped at zero", option("a", ComplexityVeryHigh, 0, 30, 0, 5,
			Risk{Impact: ImpactCritical, Likelihood: LikelihoodHigh}), 0},
		{"unknown complexity counts as medium", option("a", "", 0, 30, 0, 0), 22.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Score(tt.opt), 0.051)
		})
	}
}

func TestScoreBreakdownSumsToScore(t *testing.T) {
	o := option("a", ComplexityMedium, 0.8, 6, 2, 1, Risk{Impact: ImpactHigh, Likelihood: LikelihoodMedium})
	b := ScoreBreakdown(o)
	sum := 0.0
	for _, v := range b {
		sum += v
	}
	assert.InDelta(t, Score(o), sum, 0.051)
	assert.Equal(t, 22.5, b[CriterionComplexity])
	assert.Equal(t, -1.9, b[CriterionRisk])
	assert.Len(t, b, 5)
}

func TestRankSortsStablyAndRecommendsFirst(t *testing.T) {
	in := []Option{
		option("low", ComplexityVeryHigh, 0.2, 12, 0, 3),
		option("tie1", ComplexityMedium, 0.8, 3, 2, 1),
		option("best", ComplexityLow, 0.9, 3, 3, 0),
		option("tie2", ComplexityMedium, 0.8, 3, 2, 1),
	}
	in[0].Recommended = true
	out := Rank(in)
	require.Len(t, out, 4)
	var got []string
	for i, o := range out {
		got = append(got, o.ID)
		assert.Equal(t, i+1, o.Rank)
		assert.Equal(t, i == 0, o.Recommended)
		assert.NotEmpty(t, o.Scores)
	}
	assert.Equal(t, []string{"best", "tie1", "tie2", "low"}, got)
	assert.Zero(t, in[0].Rank, "input untouched")
	assert.True(t, in[0].Recommended, "input untouched")
	out[0].Plan.Steps[0].Title = "changed"
	assert.Equal(t, "Step s1", in[2].Plan.Steps[0].Title, "plans cloned")
	assert.Empty(t, Rank(nil))
}

func TestRiskLevel(t *testing.T) {
	tests := []struct {
		risks []Risk
		want  string
	}{
		{nil, "Low"},
		{[]Risk{{Impact: ImpactCritical, Likelihood: LikelihoodLow}}, "Low"},
		{[]Risk{{Impact: ImpactMedium, Likelihood: LikelihoodMedium}}, "Medium"},
		{[]Risk{{Impact: ImpactHigh, Likelihood: LikelihoodHigh}, {Impact: ImpactMedium, Likelihood: LikelihoodHigh}}, "High"},
		{[]Risk{{Impact: ImpactHigh, Likelihood: LikelihoodMedium}, {Impact: ImpactCritical, Likelihood: LikelihoodHigh}}, "Critical"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, RiskLevel(tt.risks))
		})
	}
}

func TestCompareBuildsMatrixAndSummary(t *testing.T) {
	ranked := Rank([]Option{
		option("a", ComplexityMedium, 0.8, 3, 2, 1, Risk{Impact: ImpactHigh, Likelihood: LikelihoodMedium}),
		option("b", ComplexityLow, 0.9, 2, 3, 0),
	})
	cmp := Compare(ranked)
	assert.Equal(t, []string{"Complexity", "Duration", "Confidence", "Risk Level", "Score"}, cmp.Criteria)
	require.Len(t, cmp.Rows, 2)
	a := cmp.Rows[1]
	assert.Equal(t, "a", a.OptionID)
	var values []string
	for _, c := range a.Cells {
		values = append(values, c.Value)
	}
	assert.Equal(t, []string{"medium", "45m0s", "80%", "High", "66.6"}, values)
	assert.InDelta(t, 66.6, a.Cells[4].Score, 1e-9)
	assert.Contains(t, cmp.Summary, `"Option b"`)
	assert.Contains(t, cmp.Summary, "low complexity")
	assert.Contains(t, cmp.Summary, "90% confidence")

	unranked := Compare([]Option{option("x", ComplexityLow, 1, 2, 5, 0)})
	assert.Equal(t, "100.0", unranked.Rows[0].Cells[4].Value, "scored on the fly")
	assert.Contains(t, unranked.Summary, "only option")
	assert.Equal(t, "No options to compare.", Compare(nil).Summary)
}
