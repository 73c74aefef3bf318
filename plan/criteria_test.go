package plan

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withEstimates sets o's duration, tokens and cost estimates.
func withEstimates(o Option, d time.Duration, tokens int, usd float64) Option {
	o.Plan.Estimates.Duration = Duration(d)
	o.Plan.Estimates.Tokens = tokens
	o.Plan.Estimates.CostUSD = usd
	return o
}

func TestCriterionScores(t *testing.T) {
	risky := Risk{Impact: ImpactCritical, Likelihood: LikelihoodHigh}
	mild := Risk{Impact: ImpactMedium, Likelihood: LikelihoodMedium}
	tests := []struct {
		name      string
		opts      []Option
		criterion CriterionName
		want      []float64
	}{
		{"speed: duration and steps against the best", []Option{
			withEstimates(option("a", ComplexityLow, 1, 2, 0, 0), 30*time.Minute, 0, 0),
			withEstimates(option("b", ComplexityLow, 1, 8, 0, 0), 2*time.Hour, 0, 0),
		}, BySpeed, []float64{1, (0.25 + 0.25) / 2}},
		{"speed: no duration estimate is neutral", []Option{
			withEstimates(option("a", ComplexityLow, 1, 2, 0, 0), 30*time.Minute, 0, 0),
			withEstimates(option("b", ComplexityLow, 1, 2, 0, 0), 0, 0, 0),
		}, BySpeed, []float64{1, 0.75}},
		{"safety: 1 − Σ impact×likelihood, floored", []Option{
			option("a", ComplexityLow, 1, 2, 0, 0),
			option("b", ComplexityLow, 1, 2, 0, 0, mild),
			option("c", ComplexityLow, 1, 2, 0, 0, risky, mild),
		}, BySafety, []float64{1, 0.75, 0}},
		{"simplicity: complexity weight", []Option{
			option("a", ComplexityLow, 1, 2, 0, 0),
			option("b", ComplexityVeryHigh, 1, 2, 0, 0),
			option("c", "", 1, 2, 0, 0),
		}, BySimplicity, []float64{1, 0.25, 0.75}},
		{"confidence: clamped", []Option{
			option("a", ComplexityLow, 0.7, 2, 0, 0),
			option("b", ComplexityLow, 1.4, 2, 0, 0),
			option("c", ComplexityLow, -1, 2, 0, 0),
		}, ByConfidence, []float64{0.7, 1, 0}},
		{"cost: tokens and USD against the cheapest", []Option{
			withEstimates(option("a", ComplexityLow, 1, 2, 0, 0), 0, 10000, 0.5),
			withEstimates(option("b", ComplexityLow, 1, 2, 0, 0), 0, 40000, 1),
			withEstimates(option("c", ComplexityLow, 1, 2, 0, 0), 0, 20000, 0),
		}, ByCost, []float64{1, (0.25 + 0.5) / 2, (0.5 + 0.5) / 2}},
		{"cost: neutral when nothing is estimated", []Option{
			option("a", ComplexityLow, 1, 2, 0, 0),
			option("b", ComplexityLow, 1, 9, 0, 0),
		}, ByCost, []float64{0.5, 0.5}},
		{"tradeoffs: share of pros, capped", []Option{
			option("a", ComplexityLow, 1, 2, 3, 1),
			option("b", ComplexityLow, 1, 2, 0, 0),
			option("c", ComplexityLow, 1, 2, 9, 5),
		}, ByTradeoffs, []float64{0.75, 0.5, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := criterionScores(tt.opts)
			require.Len(t, got, len(tt.want))
			for i, w := range tt.want {
				assert.InDelta(t, w, got[i][tt.criterion], 1e-9, "option %s", tt.opts[i].ID)
				assert.Len(t, got[i], len(CriterionNames()), "every criterion scored")
			}
		})
	}
}

func TestRankByWeighsTheCriteria(t *testing.T) {
	fastRisky := withEstimates(option("fast", ComplexityLow, 0.9, 2, 0, 0,
		Risk{Impact: ImpactHigh, Likelihood: LikelihoodHigh}), 30*time.Minute, 0, 0)
	slowSafe := withEstimates(option("safe", ComplexityLow, 0.9, 4, 0, 0), time.Hour, 0, 0)
	in := []Option{fastRisky, slowSafe}

	tests := []struct {
		name     string
		criteria []Criterion
		first    string
		scores   map[string][]float64 // option id → score, then points per criterion in order
	}{
		{"speed alone", []Criterion{{Name: BySpeed}}, "fast", map[string][]float64{
			"fast": {100, 100}, "safe": {50, 50}}},
		{"safety twice speed", []Criterion{{Name: BySafety, Weight: 2}, {Name: BySpeed, Weight: 1}}, "safe", map[string][]float64{
			"fast": {50, 16.7, 33.3}, "safe": {83.3, 66.7, 16.7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := RankBy(in, tt.criteria)
			require.NoError(t, err)
			require.Len(t, out, 2)
			assert.Equal(t, tt.first, out[0].ID)
			assert.True(t, out[0].Recommended)
			assert.False(t, out[1].Recommended)
			for i, o := range out {
				assert.Equal(t, i+1, o.Rank)
				want := tt.scores[o.ID]
				assert.InDelta(t, want[0], o.Score, 1e-9, o.ID)
				require.Len(t, o.Scores, len(tt.criteria))
				for j, c := range tt.criteria {
					assert.InDelta(t, want[j+1], o.Scores[string(c.Name)], 1e-9, "%s %s", o.ID, c.Name)
				}
			}
		})
	}
	assert.Zero(t, in[0].Rank, "input untouched")
	assert.Nil(t, in[0].Scores, "input untouched")
}

func TestRankByWithoutCriteriaIsRank(t *testing.T) {
	in := []Option{
		option("a", ComplexityMedium, 0.8, 3, 2, 1),
		option("b", ComplexityLow, 0.9, 3, 3, 0),
	}
	out, err := RankBy(in, nil)
	require.NoError(t, err)
	assert.Equal(t, Rank(in), out)
}

func TestRankByRefusesBadCriteria(t *testing.T) {
	out, err := RankBy([]Option{option("a", ComplexityLow, 1, 2, 0, 0)}, []Criterion{{Name: "beauty"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown criterion "beauty"`)
	assert.Nil(t, out)
}

func TestValidateCriteria(t *testing.T) {
	tests := []struct {
		name    string
		in      []Criterion
		wantErr []string
	}{
		{"none", nil, nil},
		{"every known name", []Criterion{{Name: BySpeed}, {Name: BySafety, Weight: 2}, {Name: BySimplicity, Weight: 0.5},
			{Name: ByConfidence}, {Name: ByCost}, {Name: ByTradeoffs}}, nil},
		{"unknown name lists the known ones", []Criterion{{Name: "Speed"}},
			[]string{`unknown criterion "Speed" (want speed, safety, simplicity, confidence, cost, tradeoffs)`}},
		{"repeated", []Criterion{{Name: BySpeed}, {Name: BySpeed, Weight: 3}}, []string{`criterion "speed" given twice`}},
		{"negative and NaN weights, all reported", []Criterion{{Name: BySafety, Weight: -1}, {Name: ByCost, Weight: math.NaN()}},
			[]string{`criterion "safety": weight -1`, `criterion "cost": weight NaN`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateCriteria(tt.in)
			if tt.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestCompareBySaysWhichCriteriaWeighed(t *testing.T) {
	in := []Option{
		withEstimates(option("a", ComplexityLow, 0.9, 2, 0, 0, Risk{Impact: ImpactHigh, Likelihood: LikelihoodHigh}), 30*time.Minute, 0, 0),
		withEstimates(option("b", ComplexityLow, 0.9, 4, 0, 0), time.Hour, 12000, 0.4),
	}
	criteria := []Criterion{{Name: BySafety, Weight: 2}, {Name: BySpeed}, {Name: ByCost, Weight: 0.5}}
	ranked, err := RankBy(in, criteria)
	require.NoError(t, err)
	cmp := CompareBy(ranked, criteria)
	assert.Equal(t, "b", cmp.Rows[0].OptionID)
	assert.Equal(t, `Recommended: "Option b" (best score, score 85.7 of 100): low complexity, 90% confidence, low risk, `+
		`4 steps, about 1h0m0s, about 12000 tokens, about $0.40. Ranked by safety (weight 2), speed (weight 1) and cost (weight 0.5).`,
		cmp.Summary)

	unranked := CompareBy(in, criteria)
	assert.Equal(t, "85.7", unranked.Rows[1].Cells[4].Value, "unranked options scored by the criteria")
	assert.Contains(t, unranked.Summary, `"Option b"`, "the best weighted score is recommended")

	plain := Compare(ranked)
	assert.NotContains(t, plain.Summary, "Ranked by", "no criteria, no mention")
	assert.NotContains(t, plain.Summary, "tokens")
}
