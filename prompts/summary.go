package prompts

import (
	"sort"

	"github.com/planmode/planmode/plan"
)

// Bounds of the summary prompt's step list (see boundSteps).
const (
	// SummaryListBytes bounds the step list of the summary prompt as a
	// whole. plan.DigestSteps and plan.DigestChars bound the count and
	// each line, so the list still grew with the plan up to 60 lines of
	// about 330 bytes; a report over 50 steps needs each step's outcome
	// in a phrase, not in 200 bytes. A plan of up to 14 steps fits whole.
	SummaryListBytes = 6000
	// minSummaryDigest is the shortest head of a digest worth showing:
	// under it a step keeps only its id, status and title.
	minSummaryDigest = 16
)

// boundSteps returns steps as the summary prompt lists them, their lines
// ("- id [status] title: digest") within budget bytes together: every
// step keeps its id, status and title (titles are cut only when those
// alone pass the budget), then the failed, skipped and cancelled steps
// their whole digest (what went wrong is what a report must say), then
// the others share what is left, each as much of its digest as its share
// allows. Steps that fit are returned as they are; steps itself is left
// alone.
func boundSteps(steps []plan.StepDigest, budget int) []plan.StepDigest {
	total := 0
	for _, s := range steps {
		total += lineBytes(s)
	}
	if total <= budget {
		return steps
	}
	out := make([]plan.StepDigest, len(steps))
	copy(out, steps)
	left := budget
	titles := make([]int, len(out))
	for i, s := range out {
		left -= lineBytes(plan.StepDigest{ID: s.ID, Status: s.Status})
		titles[i] = len(s.Title)
	}
	for i, n := range fairShares(titles, left) {
		if n < len(out[i].Title) {
			out[i].Title = plan.TruncateBytes(out[i].Title, n)
		}
		left -= len(out[i].Title)
	}
	var wrong, others []int
	for i, s := range out {
		if wentWrong(s.Status) {
			wrong = append(wrong, i)
		} else {
			others = append(others, i)
		}
	}
	left = cutDigests(out, wrong, left)
	cutDigests(out, others, left)
	return out
}

// cutDigests cuts the digests of out's steps at idx to fair shares of
// budget bytes (": " and digest) and returns the bytes left.
func cutDigests(out []plan.StepDigest, idx []int, budget int) int {
	wants := make([]int, len(idx))
	for k, i := range idx {
		if d := out[i].Digest; d != "" {
			wants[k] = len(": ") + len(d)
		}
	}
	for k, n := range fairShares(wants, budget) {
		s := &out[idx[k]]
		switch {
		case n >= wants[k]:
		case n-len(": ") < minSummaryDigest:
			s.Digest = ""
		default:
			s.Digest = plan.TruncateBytes(s.Digest, n-len(": "))
		}
		if s.Digest != "" {
			budget -= len(": ") + len(s.Digest)
		}
	}
	return budget
}

// fairShares divides budget among wants, none given more than it wants
// and the rest alike (what the short ones leave goes to the long ones).
func fairShares(wants []int, budget int) []int {
	order := make([]int, len(wants))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return wants[order[a]] < wants[order[b]] })
	shares := make([]int, len(wants))
	left := max(budget, 0)
	for k, i := range order {
		shares[i] = min(wants[i], left/(len(order)-k))
		left -= shares[i]
	}
	return shares
}

// lineBytes is the size of s's line in summarize_user.tmpl.
func lineBytes(s plan.StepDigest) int {
	n := len("- ") + len(s.ID) + len(" [") + len(s.Status) + len("] ") + len(s.Title) + len("\n")
	if s.Digest != "" {
		n += len(": ") + len(s.Digest)
	}
	return n
}

// wentWrong reports whether a step with status did not do its work.
func wentWrong(status plan.StepStatus) bool {
	return status == plan.StepFailed || status == plan.StepSkipped || status == plan.StepCancelled
}
