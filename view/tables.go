package view

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// detailsOptions writes the options' comparison table and, while a
// selection is awaited, the commands that select or refine.
func detailsOptions(p *page, r Run) {
	p.section(fmt.Sprintf("Options (revision %d)", r.State.Options.Revision))
	cmp := r.State.Options.Comparison
	if len(cmp.Rows) != len(r.State.Options.Options) {
		cmp = plan.Compare(r.State.Options.Options)
	}
	p.WriteString("| Rank | Option | Score | Complexity | Duration | Confidence | Risk | Steps | |\n")
	p.WriteString("|--:|---|--:|---|--:|--:|---|--:|---|\n")
	for i, o := range r.State.Options.Options {
		if i == maxOptionRows {
			p.f("\n… and %d more (see the options query)\n", len(r.State.Options.Options)-i)
			break
		}
		row := cmp.Rows[i]
		var marks []string
		if o.Recommended {
			marks = append(marks, "★ recommended")
		}
		if o.ID == r.State.Options.SelectedID {
			marks = append(marks, "✔ selected")
		}
		p.f("| %d | %s `%s` | %s | %s | %s | %s | %s | %d | %s |\n", o.Rank, inline(o.Title, titleWidth), inline(o.ID, titleWidth),
			cell(row, plan.CompareScore), cell(row, plan.CompareComplexity), orDash(shortDuration(o.Plan.Estimates.Duration.D())),
			cell(row, plan.CompareConfidence), cell(row, plan.CompareRiskLevel), len(o.Plan.Steps), strings.Join(marks, ", "))
	}
	if cmp.Summary != "" {
		p.f("\n%s", inline(cmp.Summary, textWidth))
	}
	if n := len(r.State.Options.Dropped); n > 0 {
		p.f("\n\n%d option(s) dropped as invalid (see the options query).", n)
	}
	if r.Selecting && !r.Refining {
		selectCommands(p, r)
	}
}

// cell is the value of a comparison row's criterion, or a dash.
func cell(row plan.ComparisonRow, criterion string) string {
	for _, c := range row.Cells {
		if c.Criterion == criterion {
			return orDash(inline(c.Value, titleWidth))
		}
	}
	return orDash("")
}

// selectCommands writes the commands that select an option or refine the
// options.
func selectCommands(p *page, r Run) {
	id := shellQuote(r.WorkflowID)
	p.f("\n\n**Select** an option by rank (1 = recommended) or by id, e.g. `{%s:%s}`; add `\"feedback\"` to say why:",
		jsonString("optionId"), jsonString(r.State.Options.Options[0].ID))
	p.commands(
		"Temporal CLI", updateCommand(r, signals.SelectOption.Name, `{"rank":1}`),
		"planmode CLI (without --rank it asks interactively)", fmt.Sprintf("planmode select %s --rank 1", id),
	)
	p.f("\n\nOr send the signal `%s` with `{\"rank\":1}` from this page. **Refine** asks for new options:", signals.SelectOption.Name)
	p.commands(
		"Temporal CLI", updateCommand(r, signals.RefinePlan.Name, `{"feedback":"what to change"}`),
		"planmode CLI", fmt.Sprintf("planmode refine %s --feedback 'what to change'", id),
	)
}

// detailsSteps writes the plan's progress and its steps table, a window
// of at most maxStepRows steps around the first open one.
func detailsSteps(p *page, r Run) {
	pl := r.State.Plan
	p.section("Plan: " + inline(pl.Title, textWidth))
	t := pl.Progress().Totals()
	done, of := pl.Progress().WorkDone()
	p.f("**%d%%** · %d of %d steps done", Percent(r), done, of)
	counts := []struct {
		n    int
		what string
	}{
		{t.Completed, string(plan.StepCompleted)}, {t.Skipped, string(plan.StepSkipped)}, {t.Failed, string(plan.StepFailed)},
		{t.Cancelled, string(plan.StepCancelled)}, {t.Running, string(plan.StepRunning)}, {t.Pending, string(plan.StepPending)},
	}
	var parts []string
	for _, c := range counts {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) > 0 {
		p.f(" (%s)", strings.Join(parts, ", "))
	}
	if rem := pl.Progress().Remaining(r.Request.Execution.Parallelism); rem > 0 && t.Done() < t.Total {
		p.f(" · about %s left", rem)
	}
	if r.State.MaxConcurrent > 1 {
		p.f(" · up to %d steps at once", r.State.MaxConcurrent)
	}
	if len(pl.Steps) == 0 {
		return
	}
	from, to := stepWindow(pl.Steps)
	p.WriteString("\n\n| # | Status | Step | Action | Tries | Time | Result |\n|--:|---|---|---|--:|--:|---|\n")
	if from > 0 {
		p.f("| | | *… %d earlier step(s)* | | | | |\n", from)
	}
	for _, s := range pl.Steps[from:to] {
		tries, took := "", ""
		if s.Result != nil {
			if s.Result.Attempts > 0 {
				tries = fmt.Sprintf("%d", s.Result.Attempts)
			}
			took = shortDuration(s.Result.Duration.D())
		}
		p.f("| %d | %s %s | %s | %s | %s | %s | %s |\n", s.Number, statusMark(s.Status), statusText(s), inline(s.Title, titleWidth),
			s.Action, orDash(tries), orDash(took), orDash(digest(s)))
	}
	if rest := len(pl.Steps) - to; rest > 0 {
		p.f("| | | *… %d later step(s)* | | | | |\n", rest)
	}
}

// stepWindow picks the steps the table shows: all of them when they fit,
// otherwise maxStepRows steps starting a few before the first open one.
func stepWindow(steps []plan.Step) (int, int) {
	if len(steps) <= maxStepRows {
		return 0, len(steps)
	}
	first := len(steps)
	for i, s := range steps {
		if !s.Status.Done() {
			first = i
			break
		}
	}
	from := max(0, first-stepRowsBefore)
	to := min(len(steps), from+maxStepRows)
	return max(0, to-maxStepRows), to
}

// statusText is a step's status, naming the fallback that rescued it.
func statusText(s plan.Step) string {
	if fb := s.RescuedBy(); fb != "" {
		return fmt.Sprintf("%s (fallback `%s`)", s.Status, inline(fb, titleWidth))
	}
	return string(s.Status)
}

// digest is a step's outcome in a few words: its error, a note on its
// skip, cancellation or rescue, or the first line of its output.
func digest(s plan.Step) string {
	res := s.Result
	var text string
	switch {
	case s.RescuedBy() != "" && s.Note != "":
		// The note says what the step failed with; the status names
		// the fallback.
		return inline(s.Note, digestWidth)
	case res != nil && res.Error != "":
		text = "error: " + res.Error
	case s.Note != "":
		text = s.Note
	case res != nil:
		text, _, _ = strings.Cut(strings.TrimSpace(res.Output), "\n")
	}
	if res != nil && res.FallbackUsed != "" {
		text = fmt.Sprintf("via fallback %s: %s", res.FallbackUsed, text)
	}
	if res != nil && res.IterationLimitReached {
		text = "iteration limit reached: " + text
	}
	return inline(text, digestWidth)
}

// detailsSkips writes the skips waiting for a person and how to answer
// them.
func detailsSkips(p *page, r Run) {
	p.section("Skips waiting for confirmation")
	p.WriteString("| Request | Steps | Confidence | Reason | Deadline |\n|---|---|--:|---|---|\n")
	for i, c := range r.State.SkipConfirmations {
		if i == maxSkipRows {
			p.f("\n… and %d more (see the pending query)\n", len(r.State.SkipConfirmations)-i)
			break
		}
		deadline := "none: waits for an answer"
		if c.Deadline != nil {
			outcome := "deny"
			if c.DefaultApprove {
				outcome = "approve"
			}
			deadline = fmt.Sprintf("%s, then %s", stamp(*c.Deadline), outcome)
		}
		p.f("| `%s` | %s | %.0f%% | %s | %s |\n", inline(c.RequestID, titleWidth), orDash(inline(strings.Join(c.StepIDs, ", "), titleWidth)),
			c.Confidence*100, inline(c.Reason, digestWidth), deadline)
	}
	first := r.State.SkipConfirmations[0].RequestID
	p.f("\nApprove (or deny with `\"approve\":false` / `--deny`) request `%s`:", inline(first, titleWidth))
	p.commands(
		"Temporal CLI", updateCommand(r, signals.ConfirmSkip.Name, fmt.Sprintf(`{"requestId":%s,"approve":true}`, jsonString(first))),
		"planmode CLI", fmt.Sprintf("planmode confirm-skip %s %s --approve", shellQuote(r.WorkflowID), shellQuote(first)),
	)
}
