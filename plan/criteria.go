package plan

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// CriterionName names a ranking criterion of RankBy. Every name says what
// scores high: safety is the absence of risk, tradeoffs the balance of pros
// against cons.
type CriterionName string

// Ranking criteria. Each scores an option from 0 (worst) to 1 (best):
//
//   - speed: the mean of two ratios to the best option of the set, shortest
//     estimated duration / this duration and fewest steps / these steps. An
//     option without a duration estimate scores 0.5 on duration; an empty
//     plan scores 0 on steps.
//   - safety: 1 − Σ impact×likelihood over the plan's risks (impact 0.25 to
//     1, likelihood 0.25 to 1, unknown ratings 0.5), floored at 0: a single
//     critical, likely risk scores 0.
//   - simplicity: ComplexityWeight of the estimated complexity, 1 for low
//     down to 0.25 for very high.
//   - confidence: the estimated confidence, clamped to 0..1.
//   - cost: the mean of the ratios cheapest / this for estimated tokens and
//     for estimated USD, over those two that at least one option of the set
//     estimates; an option without that estimate scores 0.5 on it, and when
//     no option estimates either every option scores 0.5.
//   - tradeoffs: pros / (pros + cons), each counted up to five; 0.5 with
//     neither.
//
// Speed and cost compare the options of one set, so an option alone scores
// 1 on them whenever it carries the estimate.
const (
	BySpeed      CriterionName = "speed"
	BySafety     CriterionName = "safety"
	BySimplicity CriterionName = "simplicity"
	ByConfidence CriterionName = "confidence"
	ByCost       CriterionName = "cost"
	ByTradeoffs  CriterionName = "tradeoffs"
)

// CriterionNames lists the ranking criteria in the order the documentation
// gives them.
func CriterionNames() []CriterionName {
	return []CriterionName{BySpeed, BySafety, BySimplicity, ByConfidence, ByCost, ByTradeoffs}
}

// Criterion is one weighted ranking criterion. Weights are relative: safety
// 2 and speed 1 make safety count twice as much as speed. A zero weight
// counts as 1, so {"name": "safety"} alone ranks by safety.
type Criterion struct {
	Name   CriterionName `json:"name"`
	Weight float64       `json:"weight,omitempty"`
}

// weight is c's effective weight: Weight, or 1 when zero.
func (c Criterion) weight() float64 {
	if c.Weight == 0 {
		return 1
	}
	return c.Weight
}

// ValidateCriteria reports every problem of a ranking, all at once: an
// unknown or repeated name, a negative or non-finite weight. An empty
// ranking is valid (Rank's default formula applies).
func ValidateCriteria(cs []Criterion) error {
	var errs []string
	seen := map[CriterionName]bool{}
	for _, c := range cs {
		switch {
		case !knownCriterion(c.Name):
			errs = append(errs, fmt.Sprintf("unknown criterion %q (want %s)", c.Name, criterionList()))
		case seen[c.Name]:
			errs = append(errs, fmt.Sprintf("criterion %q given twice", c.Name))
		}
		seen[c.Name] = true
		if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			errs = append(errs, fmt.Sprintf("criterion %q: weight %v must be a number of 0 or more", c.Name, c.Weight))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func knownCriterion(n CriterionName) bool {
	for _, k := range CriterionNames() {
		if k == n {
			return true
		}
	}
	return false
}

// criterionList is "speed, safety, …" for error messages.
func criterionList() string {
	names := CriterionNames()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n)
	}
	return strings.Join(parts, ", ")
}

// RankBy ranks like Rank but scores each option as the weighted average of
// the criteria's 0..1 scores, times 100, rounded to one decimal. Scores
// holds the points each criterion adds (its share of the weight × its
// score × 100), keyed by criterion name. With no criteria it is Rank. It
// returns an error, and no options, when ValidateCriteria refuses the
// criteria.
func RankBy(opts []Option, criteria []Criterion) ([]Option, error) {
	if len(criteria) == 0 {
		return Rank(opts), nil
	}
	if err := ValidateCriteria(criteria); err != nil {
		return nil, fmt.Errorf("rank options: %w", err)
	}
	out := cloneOptions(opts)
	breakdowns, totals := weighted(out, criteria)
	for i := range out {
		out[i].Scores = breakdowns[i]
		out[i].Score = totals[i]
	}
	order(out)
	return out, nil
}

// weighted returns, per option in input order, the points each criterion
// adds and the total score. Unknown criteria add nothing.
func weighted(opts []Option, criteria []Criterion) ([]map[string]float64, []float64) {
	sum := 0.0
	for _, c := range criteria {
		sum += c.weight()
	}
	scores := criterionScores(opts)
	breakdowns := make([]map[string]float64, len(opts))
	totals := make([]float64, len(opts))
	for i := range opts {
		breakdowns[i] = map[string]float64{}
		total := 0.0
		for _, c := range criteria {
			pts := 0.0
			if sum > 0 {
				pts = c.weight() / sum * scores[i][c.Name] * 100
			}
			breakdowns[i][string(c.Name)] = round1(pts)
			total += pts
		}
		totals[i] = round1(math.Max(0, math.Min(100, total)))
	}
	return breakdowns, totals
}

// criterionScores scores every option 0..1 on every criterion (see the
// CriterionName constants), in input order.
func criterionScores(opts []Option) []map[CriterionName]float64 {
	best := bestOf(opts)
	out := make([]map[CriterionName]float64, len(opts))
	for i, o := range opts {
		est := o.Plan.Estimates
		out[i] = map[CriterionName]float64{
			BySpeed:      mean(ratio(best.duration, float64(est.Duration)), stepRatio(best.steps, len(o.Plan.Steps))),
			BySafety:     safety(o.Plan.Risks),
			BySimplicity: ComplexityWeight(est.Complexity),
			ByConfidence: math.Max(0, math.Min(1, est.Confidence)),
			ByCost:       costScore(best, est),
			ByTradeoffs:  tradeoffs(len(o.Pros), len(o.Cons)),
		}
	}
	return out
}

// bests holds the smallest positive estimate of each kind among a set of
// options; zero when no option has one.
type bests struct {
	duration, tokens, costUSD float64
	steps                     int
}

func bestOf(opts []Option) bests {
	var b bests
	for _, o := range opts {
		est := o.Plan.Estimates
		b.duration = smallest(b.duration, float64(est.Duration))
		b.tokens = smallest(b.tokens, float64(est.Tokens))
		b.costUSD = smallest(b.costUSD, est.CostUSD)
		if n := len(o.Plan.Steps); n > 0 && (b.steps == 0 || n < b.steps) {
			b.steps = n
		}
	}
	return b
}

// smallest returns the smaller positive of best and v, ignoring v when it
// is not positive and best when it is zero.
func smallest(best, v float64) float64 {
	if v <= 0 || (best > 0 && best <= v) {
		return best
	}
	return v
}

// ratio is best/v for a positive estimate v, 0.5 when v is unknown.
func ratio(best, v float64) float64 {
	if v <= 0 || best <= 0 {
		return 0.5
	}
	return best / v
}

// stepRatio is best/n for a plan of n steps; an empty plan scores 0.
func stepRatio(best, n int) float64 {
	if n <= 0 || best <= 0 {
		return 0
	}
	return float64(best) / float64(n)
}

// safety is 1 − Σ impact×likelihood, floored at 0.
func safety(risks []Risk) float64 {
	total := 0.0
	for _, r := range risks {
		total += weightOr(impactWeight, r.Impact, 0.5) * weightOr(likelihoodWeight, r.Likelihood, 0.5)
	}
	return math.Max(0, 1-total)
}

// costScore averages the token and USD ratios the set estimates.
func costScore(best bests, est Estimates) float64 {
	var parts []float64
	if best.tokens > 0 {
		parts = append(parts, ratio(best.tokens, float64(est.Tokens)))
	}
	if best.costUSD > 0 {
		parts = append(parts, ratio(best.costUSD, est.CostUSD))
	}
	if len(parts) == 0 {
		return 0.5
	}
	return mean(parts...)
}

// tradeoffs is the share of pros among pros and cons, each capped.
func tradeoffs(pros, cons int) float64 {
	pros, cons = min(pros, maxTradeoffs), min(cons, maxTradeoffs)
	if pros+cons == 0 {
		return 0.5
	}
	return float64(pros) / float64(pros+cons)
}

func mean(xs ...float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
