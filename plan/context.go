package plan

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds of a StepContext. Each field is capped by one of these, so the
// context of a step has the same maximum size whatever the plan's length,
// and the prompts of a whole plan grow linearly with its number of steps.
const (
	// ContextNeighbours is how many steps before and after are shown.
	ContextNeighbours = 2
	// ContextDigestChars caps the digest of a neighbour's result: a
	// sentence or two, the head of an answer that was asked to put its
	// essentials first.
	ContextDigestChars = 160
	// ContextTitleChars caps every title shown.
	ContextTitleChars = 120
	// ContextGoalChars caps the goal.
	ContextGoalChars = 2000
	// ContextSummaryChars caps the summary of the older steps: their
	// counts by status and the first failed ones.
	ContextSummaryChars = 320
	// contextSummaryRecent is how many older steps the summary names with
	// a digest. None: the neighbours before the step carry the recent
	// outcomes, and a few words on older ones told a step little for the
	// tokens they cost in every prompt.
	contextSummaryRecent = 0
	// contextSummaryDigest caps each older step's digest in the summary.
	contextSummaryDigest = 80
	// contextSummaryFailed is how many failed older steps are listed.
	contextSummaryFailed = 5
)

// StepContext is the bounded context a step's prompt carries.
type StepContext struct {
	Goal         string       `json:"goal"`
	Step         Step         `json:"step"`
	Position     int          `json:"position"`
	Total        int          `json:"total"`
	Before       []StepDigest `json:"before,omitempty"`
	After        []StepDigest `json:"after,omitempty"`
	EarlierCount int          `json:"earlierCount,omitempty"`
	LaterCount   int          `json:"laterCount,omitempty"`
	Summary      string       `json:"summary,omitempty"`
}

// StepDigest is a short account of a neighbouring step.
type StepDigest struct {
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Status StepStatus `json:"status"`
	Digest string     `json:"digest,omitempty"`
}

// BuildStepContext returns the bounded context for step id: the goal, the
// step itself (config kept, result and times cleared), its 1-based
// position, up to ContextNeighbours steps just before it with digests of
// their results and up to ContextNeighbours after it by title, the counts
// of the steps further away, and a summary of the older steps capped at
// ContextSummaryChars. For an unknown id only Goal and Total are set.
func BuildStepContext(goal string, p *Plan, id string) StepContext {
	ctx := StepContext{Goal: Truncate(goal, ContextGoalChars), Total: len(p.Steps)}
	i := p.indexOf(id)
	if i < 0 {
		return ctx
	}
	s := p.Steps[i].Clone()
	s.Result, s.StartedAt, s.EndedAt = nil, nil, nil
	ctx.Step = s
	ctx.Position = i + 1
	from := max(0, i-ContextNeighbours)
	for _, b := range p.Steps[from:i] {
		ctx.Before = append(ctx.Before, digestOf(b, ContextDigestChars))
	}
	to := min(len(p.Steps), i+1+ContextNeighbours)
	for _, a := range p.Steps[i+1 : to] {
		ctx.After = append(ctx.After, StepDigest{ID: a.ID, Title: Truncate(a.Title, ContextTitleChars), Status: a.Status})
	}
	ctx.EarlierCount = from
	ctx.LaterCount = len(p.Steps) - to
	ctx.Summary = summarizeOlder(p.Steps[:from])
	return ctx
}

// Digest returns a one-line account of a step's outcome, at most n
// characters: the error of a failed result, else its output, else the
// step's note.
func Digest(s Step, n int) string {
	text := s.Note
	if r := s.Result; r != nil {
		switch {
		case !r.Success && r.Error != "":
			text = "error: " + r.Error
		case r.Output != "":
			text = r.Output
		}
	}
	return Truncate(strings.Join(strings.Fields(headBytes(text, 8*n)), " "), n)
}

func digestOf(s Step, n int) StepDigest {
	return StepDigest{ID: s.ID, Title: Truncate(s.Title, ContextTitleChars), Status: s.Status, Digest: Digest(s, n)}
}

// summarizeOlder summarises steps outside the neighbour window: counts by
// status, the first failed ones and the last few with short digests.
func summarizeOlder(older []Step) string {
	if len(older) == 0 {
		return ""
	}
	var b strings.Builder
	t := (&Plan{Steps: older}).Progress().Totals()
	b.WriteString(fmt.Sprintf("%d earlier steps: %d completed, %d failed, %d skipped, %d cancelled, %d not done.",
		t.Total, t.Completed, t.Failed, t.Skipped, t.Cancelled, t.Pending+t.Running))
	var failed []string
	for i := range older {
		s := &older[i]
		if s.Status == StepFailed && len(failed) < contextSummaryFailed {
			failed = append(failed, Truncate(s.ID, 40))
		}
	}
	if len(failed) > 0 {
		b.WriteString(fmt.Sprintf(" Failed: %s.", strings.Join(failed, ", ")))
	}
	recent := older[max(0, len(older)-contextSummaryRecent):]
	for _, s := range recent {
		b.WriteString(fmt.Sprintf(" [%s %s, %s] %s", Truncate(s.ID, 40), Truncate(s.Title, 60), s.Status, Digest(s, contextSummaryDigest)))
	}
	return Truncate(b.String(), ContextSummaryChars)
}

// Truncate returns s cut to at most n characters (runes), ending in "…"
// when it was cut.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
