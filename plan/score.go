package plan

import (
	"math"
	"sort"
)

// Score criteria, the keys of Option.Scores. Each holds the points that
// criterion adds to (or, for risk, takes from) the score.
const (
	CriterionComplexity = "complexity"
	CriterionConfidence = "confidence"
	CriterionTradeoffs  = "tradeoffs"
	CriterionRisk       = "risk"
	CriterionBrevity    = "brevity"
)

// Scoring weights. The built-in score gives complexity and confidence 30
// points each, 5 per pro and −3 per con, and −5×impact×likelihood per
// risk. Pros and cons count up to maxTradeoffs each, so a long list cannot
// drown the rest, and a brevity bonus rewards short plans: with five pros,
// low complexity, full confidence, no risk and a short plan the score
// reaches 100.
const (
	weightComplexity = 30
	weightConfidence = 30
	pointsPerPro     = 5
	pointsPerCon     = 3
	maxTradeoffs     = 5
	pointsPerRisk    = 5
	weightBrevity    = 15
	// Plans of up to briefSteps steps earn the full brevity bonus; the
	// bonus falls linearly to zero at longSteps steps.
	briefSteps = 3
	longSteps  = 20
)

var complexityWeight = map[Complexity]float64{
	ComplexityLow:      1,
	ComplexityMedium:   0.75,
	ComplexityHigh:     0.5,
	ComplexityVeryHigh: 0.25,
}

var impactWeight = map[RiskImpact]float64{
	ImpactLow:      0.25,
	ImpactMedium:   0.5,
	ImpactHigh:     0.75,
	ImpactCritical: 1,
}

var likelihoodWeight = map[RiskLikelihood]float64{
	LikelihoodLow:    0.25,
	LikelihoodMedium: 0.5,
	LikelihoodHigh:   1,
}

// ComplexityWeight is how simple a complexity rating is, 1 for low down to
// 0.25 for very high. An unknown or missing rating counts as medium.
func ComplexityWeight(c Complexity) float64 {
	if w, ok := complexityWeight[c]; ok {
		return w
	}
	return complexityWeight[ComplexityMedium]
}

// ScoreBreakdown returns the points each criterion contributes to o's
// score (see the Criterion constants). Unknown risk ratings weigh as
// medium.
func ScoreBreakdown(o Option) map[string]float64 {
	est := o.Plan.Estimates
	conf := math.Max(0, math.Min(1, est.Confidence))
	risk := 0.0
	for _, r := range o.Plan.Risks {
		risk += weightOr(impactWeight, r.Impact, 0.5) * weightOr(likelihoodWeight, r.Likelihood, 0.5) * pointsPerRisk
	}
	pros := min(len(o.Pros), maxTradeoffs)
	cons := min(len(o.Cons), maxTradeoffs)
	return map[string]float64{
		CriterionComplexity: round1(ComplexityWeight(est.Complexity) * weightComplexity),
		CriterionConfidence: round1(conf * weightConfidence),
		CriterionTradeoffs:  float64(pros*pointsPerPro - cons*pointsPerCon),
		CriterionRisk:       -round1(risk),
		CriterionBrevity:    round1(brevity(len(o.Plan.Steps))),
	}
}

// brevity is the bonus for a plan of n steps; an empty plan earns none.
func brevity(n int) float64 {
	switch {
	case n <= 0:
		return 0
	case n <= briefSteps:
		return weightBrevity
	case n >= longSteps:
		return 0
	}
	return weightBrevity * float64(longSteps-n) / float64(longSteps-briefSteps)
}

// Score scores an option from 0 to 100, rounded to one decimal: the sum of
// ScoreBreakdown, clamped.
func Score(o Option) float64 {
	b := ScoreBreakdown(o)
	total := 0.0
	for _, k := range []string{CriterionComplexity, CriterionConfidence, CriterionTradeoffs, CriterionRisk, CriterionBrevity} {
		total += b[k]
	}
	return round1(math.Max(0, math.Min(100, total)))
}

// Rank returns a new slice of the options scored (Score and Scores set),
// sorted best first, ranked 1..n and with only the first Recommended. The
// sort is stable: equal scores keep their input order. Plans are cloned,
// so the result shares nothing with opts.
func Rank(opts []Option) []Option {
	out := cloneOptions(opts)
	for i := range out {
		out[i].Scores = ScoreBreakdown(out[i])
		out[i].Score = Score(out[i])
	}
	order(out)
	return out
}

// cloneOptions copies opts deeply enough that ranking the copy leaves opts
// untouched.
func cloneOptions(opts []Option) []Option {
	out := make([]Option, len(opts))
	for i, o := range opts {
		o.Plan = o.Plan.Clone()
		o.Pros = cloneStrings(o.Pros)
		o.Cons = cloneStrings(o.Cons)
		out[i] = o
	}
	return out
}

// order sorts scored options best first, stably, ranks them 1..n and
// recommends the first.
func order(out []Option) {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	for i := range out {
		out[i].Rank = i + 1
		out[i].Recommended = i == 0
	}
}

// RiskLevel rates a list of risks, for the Risk Level column of Compare:
// the highest impact among risks at least medium in likelihood, as "Low",
// "Medium", "High" or "Critical"; "Low" when there is none. Unlikely risks
// (and risks of unknown likelihood) do not raise it, however high their
// impact.
func RiskLevel(risks []Risk) string {
	level := 0
	for _, r := range risks {
		if r.Likelihood != LikelihoodMedium && r.Likelihood != LikelihoodHigh {
			continue
		}
		switch r.Impact {
		case ImpactCritical:
			level = max(level, 3)
		case ImpactHigh:
			level = max(level, 2)
		case ImpactMedium:
			level = max(level, 1)
		}
	}
	return [...]string{"Low", "Medium", "High", "Critical"}[level]
}

func weightOr[K comparable](m map[K]float64, k K, def float64) float64 {
	if w, ok := m[k]; ok {
		return w
	}
	return def
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }
