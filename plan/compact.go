package plan

import "strings"

// Bounds of what a plan keeps of a finished step's result once the step
// and its reflection are done. The whole output went through history once,
// in the step's activity result; the plan is carried by every later query,
// the continue-as-new state and the final Result, so it keeps a head of
// the output only (the step's result says it was cut, and OutputRef names
// the file holding the whole when the worker kept one).
const (
	// KeptOutputBytes is the head of a finished step's output the plan
	// keeps. It is more than any digest reads (ContextDigestChars), so step
	// contexts and summaries built from a compacted step read the same.
	KeptOutputBytes = 512
	// KeptErrorBytes is the head of a finished step's error the plan
	// keeps.
	KeptErrorBytes = 1 << 10
)

// CompactResult cuts the output and error of step id's result to their
// kept heads, unless a step not done yet has a skip condition that reads
// the output ("<id>.output contains ..."): that one needs it whole. It
// reports whether it cut anything.
func (p *Plan) CompactResult(id string) bool {
	s := p.StepByID(id)
	if s == nil || s.Result == nil || !s.Status.Done() || p.outputRead(id) {
		return false
	}
	r := s.Result
	cut := false
	if len(r.Output) > KeptOutputBytes {
		r.Output, r.OutputTruncated, cut = TruncateBytes(r.Output, KeptOutputBytes), true, true
	}
	if len(r.Error) > KeptErrorBytes {
		r.Error, cut = TruncateBytes(r.Error, KeptErrorBytes), true
	}
	return cut
}

// outputRead reports whether the skip condition of a step not done yet
// reads step id's output.
func (p *Plan) outputRead(id string) bool {
	ref := id + ".output"
	for i := range p.Steps {
		s := &p.Steps[i]
		if !s.Status.Done() && s.SkipCondition != "" && strings.Contains(s.SkipCondition, ref) {
			return true
		}
	}
	return false
}

// Bounds of a plan's digest (see Plan.Digest).
const (
	// DigestSteps is the most steps a digest lists one by one.
	DigestSteps = 60
	// DigestChars bounds each listed step's digest.
	DigestChars = 200
)

// PlanDigest is a bounded account of a plan for its summary: its title,
// the steps counted by status, and the first DigestSteps steps with a
// short digest of how each ended (More counts those left out). Its size
// does not grow with the plan.
type PlanDigest struct {
	Title  string       `json:"title,omitempty"`
	Totals Totals       `json:"totals"`
	Steps  []StepDigest `json:"steps,omitempty"`
	More   int          `json:"more,omitempty"`
}

// Digest returns the plan's bounded account.
func (p Plan) Digest() PlanDigest {
	d := PlanDigest{Title: p.Title, Totals: p.Progress().Totals()}
	for i := range p.Steps {
		s := &p.Steps[i]
		if len(d.Steps) == DigestSteps {
			d.More++
			continue
		}
		d.Steps = append(d.Steps, StepDigest{ID: s.ID, Title: TruncateBytes(s.Title, ContextTitleChars),
			Status: s.Status, Digest: TruncateBytes(Digest(*s, DigestChars), DigestChars)})
	}
	return d
}

// RemainingListed is the most steps not done yet a reflection is shown.
const RemainingListed = 10

// NotDone returns the first RemainingListed steps not done yet (ids,
// titles and statuses) and how many more there are.
func (p Plan) NotDone() ([]StepDigest, int) {
	var out []StepDigest
	more := 0
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Status.Done() {
			continue
		}
		if len(out) == RemainingListed {
			more++
			continue
		}
		out = append(out, StepDigest{ID: s.ID, Title: Truncate(s.Title, ContextTitleChars), Status: s.Status})
	}
	return out, more
}
