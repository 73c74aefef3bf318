package plan

import (
	"fmt"
	"strings"
)

// Comparison criteria, the columns of the comparison matrix Compare
// builds, in that order.
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
// Level and Score. Values are for people to read ("medium", "45m0s", "80%",
// "High", "72.5"); cell scores are 0..1 where higher is better (Score's
// cell is the 0..100 score). Options not yet ranked are scored here. The
// summary names the recommended option (the one marked so, else the best
// score) and why.
func Compare(opts []Option) Comparison {
	return CompareBy(opts, nil)
}

// CompareBy is Compare for options ranked by RankBy with criteria: options
// not yet ranked are scored by the same criteria, and the summary says
// which criteria weighed and how much. With no criteria it is Compare.
func CompareBy(opts []Option, criteria []Criterion) Comparison {
	cmp := Comparison{Criteria: []string{CompareComplexity, CompareDuration, CompareConfidence, CompareRiskLevel, CompareScore}}
	scores := scoresOf(opts, criteria)
	for i, o := range opts {
		est := o.Plan.Estimates
		risk := RiskLevel(o.Plan.Risks)
		cmp.Rows = append(cmp.Rows, ComparisonRow{OptionID: o.ID, Title: o.Title, Cells: []ComparisonCell{
			{Criterion: CompareComplexity, Value: complexityLabel(est.Complexity), Score: ComplexityWeight(est.Complexity)},
			{Criterion: CompareDuration, Value: est.Duration.String()},
			{Criterion: CompareConfidence, Value: fmt.Sprintf("%.0f%%", est.Confidence*100), Score: est.Confidence},
			{Criterion: CompareRiskLevel, Value: risk, Score: riskLevelScore[risk]},
			{Criterion: CompareScore, Value: fmt.Sprintf("%.1f", scores[i]), Score: scores[i]},
		}})
	}
	cmp.Summary = summarize(opts, scores, criteria)
	return cmp
}

// scoresOf is each option's score: the one ranking set, or computed now
// (by the criteria when there are some, else by Score).
func scoresOf(opts []Option, criteria []Criterion) []float64 {
	var fresh []float64
	if len(criteria) > 0 {
		_, fresh = weighted(opts, criteria)
	}
	out := make([]float64, len(opts))
	for i, o := range opts {
		switch {
		case o.Rank > 0 || o.Score != 0:
			out[i] = o.Score
		case fresh != nil:
			out[i] = fresh[i]
		default:
			out[i] = Score(o)
		}
	}
	return out
}

func complexityLabel(c Complexity) string {
	if c == "" {
		return "unknown"
	}
	return string(c)
}

// summarize says in one line which option is recommended and why, and
// which criteria weighed when there are some.
func summarize(opts []Option, scores []float64, criteria []Criterion) string {
	if len(opts) == 0 {
		return "No options to compare."
	}
	best := 0
	for i, o := range opts {
		if o.Recommended {
			best = i
			break
		}
		if scores[i] > scores[best] {
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
	why = append(why, costFacts(est, criteria)...)
	lead := "best score"
	if len(opts) == 1 {
		lead = "only option"
	}
	line := fmt.Sprintf("Recommended: %q (%s, score %.1f of 100): %s.", o.Title, lead, scores[best], strings.Join(why, ", "))
	if len(criteria) > 0 {
		line += " Ranked by " + weighedList(criteria) + "."
	}
	return line
}

// costFacts names the estimated tokens and cost when cost weighed.
func costFacts(est Estimates, criteria []Criterion) []string {
	weighed := false
	for _, c := range criteria {
		weighed = weighed || c.Name == ByCost
	}
	var out []string
	if weighed && est.Tokens > 0 {
		out = append(out, fmt.Sprintf("about %d tokens", est.Tokens))
	}
	if weighed && est.CostUSD > 0 {
		out = append(out, fmt.Sprintf("about $%.2f", est.CostUSD))
	}
	return out
}

// weighedList renders criteria as "safety (weight 2) and speed (weight
// 1)".
func weighedList(criteria []Criterion) string {
	parts := make([]string, len(criteria))
	for i, c := range criteria {
		parts[i] = fmt.Sprintf("%s (weight %g)", c.Name, c.weight())
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
