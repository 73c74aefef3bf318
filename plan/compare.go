package plan

import (
	"fmt"
	"strings"
)

// Comparison criteria, the columns of seed 000's comparison matrix.
const (
	CompareComplexity = "Complexity"
	CompareDuration   = "Duration"
	CompareConfidence = "Confidence"
	CompareRiskLevel  = "Risk Level"
	CompareScore      = "Score"
)

// Comparison is the options' comparison matrix.
type Comparison struct {
	Criteria []string        `json:"criteria"`
	Rows     []ComparisonRow `json:"rows"`
	Summary  string          `json:"summary,omitempty"`
}

// ComparisonRow is one option's row.
type ComparisonRow struct {
	OptionID string           `json:"optionId"`
	Title    string           `json:"title"`
	Cells    []ComparisonCell `json:"cells"`
}

// ComparisonCell is one criterion's value for one option.
type ComparisonCell struct {
	Criterion string  `json:"criterion"`
	Value     string  `json:"value"`
	Score     float64 `json:"score"`
}

var riskLevelScore = map[string]float64{"Low": 1, "Medium": 0.75, "High": 0.5, "Critical": 0.25}

// Compare builds the comparison matrix with one row per option, in the
// given order, and the criteria Complexity, Duration, Confidence, Risk
// Level and Score. Values read as in seed 000 ("medium", "45m0s", "80%",
// "High", "72.5"); cell scores are 0..1 where higher is better (Score's
// cell is the 0..100 score). Options not yet ranked are scored here. The
// summary names the recommended option (the one marked so, else the best
// score) and why.
func Compare(opts []Option) Comparison {
	cmp := Comparison{Criteria: []string{CompareComplexity, CompareDuration, CompareConfidence, CompareRiskLevel, CompareScore}}
	for _, o := range opts {
		est := o.Plan.Estimates
		risk := RiskLevel(o.Plan.Risks)
		score := scoreOf(o)
		cmp.Rows = append(cmp.Rows, ComparisonRow{OptionID: o.ID, Title: o.Title, Cells: []ComparisonCell{
			{Criterion: CompareComplexity, Value: complexityLabel(est.Complexity), Score: ComplexityWeight(est.Complexity)},
			{Criterion: CompareDuration, Value: est.Duration.String()},
			{Criterion: CompareConfidence, Value: fmt.Sprintf("%.0f%%", est.Confidence*100), Score: est.Confidence},
			{Criterion: CompareRiskLevel, Value: risk, Score: riskLevelScore[risk]},
			{Criterion: CompareScore, Value: fmt.Sprintf("%.1f", score), Score: score},
		}})
	}
	cmp.Summary = summarize(opts)
	return cmp
}

// scoreOf is o's score: the one Rank set, or computed now.
func scoreOf(o Option) float64 {
	if o.Rank > 0 || o.Score != 0 {
		return o.Score
	}
	return Score(o)
}

func complexityLabel(c Complexity) string {
	if c == "" {
		return "unknown"
	}
	return string(c)
}

// summarize says in one line which option is recommended and why.
func summarize(opts []Option) string {
	if len(opts) == 0 {
		return "No options to compare."
	}
	best := 0
	for i, o := range opts {
		if o.Recommended {
			best = i
			break
		}
		if scoreOf(o) > scoreOf(opts[best]) {
			best = i
		}
	}
	o := opts[best]
	est := o.Plan.Estimates
	why := []string{
		complexityLabel(est.Complexity) + " complexity",
		fmt.Sprintf("%.0f%% confidence", est.Confidence*100),
		strings.ToLower(RiskLevel(o.Plan.Risks)) + " risk",
		fmt.Sprintf("%d steps", len(o.Plan.Steps)),
	}
	if est.Duration > 0 {
		why = append(why, "about "+est.Duration.String())
	}
	lead := "best score"
	if len(opts) == 1 {
		lead = "only option"
	}
	return fmt.Sprintf("Recommended: %q (%s, score %.1f of 100): %s.", o.Title, lead, scoreOf(o), strings.Join(why, ", "))
}
