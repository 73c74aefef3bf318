package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// statusMarks are the one-character marks of step statuses.
var statusMarks = map[plan.StepStatus]string{
	plan.StepPending:   "·",
	plan.StepRunning:   "▶",
	plan.StepRetrying:  "↻",
	plan.StepCompleted: "✓",
	plan.StepFailed:    "✗",
	plan.StepSkipped:   "↷",
	plan.StepCancelled: "⊘",
}

// renderSteps prints one line per step: number, id, status, action,
// title, dependencies and a short note (error, skip reason, output). A
// step whose output was truncated gets a second line, in the note column,
// naming the file that holds the whole of it.
func renderSteps(w io.Writer, steps []plan.Step) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tSTATUS\tACTION\tTITLE\tDEPENDS ON\tNOTE\t")
	for _, s := range steps {
		fmt.Fprintf(tw, "%d\t%s\t%s %s\t%s\t%s\t%s\t%s\t\n", s.Number, s.ID, orDash(statusMarks[s.Status]), stepStatus(s),
			s.Action, clip(s.Title, titleWidth), orDash(strings.Join(s.DependsOn, ",")), orDash(clip(stepNote(s), titleWidth)))
		if r := s.Result; r != nil && r.OutputRef != "" {
			fmt.Fprintf(tw, "\t\t\t\t\t\tfull output: %s\n", outputCommand(r.OutputRef))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write steps: %w", err)
	}
	return nil
}

// stepStatus is a step's status, naming the fallback that rescued it:
// "completed (fallback s5)".
func stepStatus(s plan.Step) string {
	if fb := s.RescuedBy(); fb != "" {
		return fmt.Sprintf("%s (fallback %s)", s.Status, fb)
	}
	return string(s.Status)
}

// stepNote is what a step's line says beyond its status. A rescued step
// shows its note, which says what it failed with.
func stepNote(s plan.Step) string {
	if s.RescuedBy() != "" && s.Note != "" {
		return firstLine(s.Note)
	}
	if r := s.Result; r != nil {
		switch {
		case r.Error != "":
			return r.Error
		case r.FallbackUsed != "":
			return "fallback " + r.FallbackUsed
		case r.Output != "":
			return firstLine(r.Output)
		}
	}
	return firstLine(s.Note)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// renderPlan prints a plan's header, its steps and its latest updates.
func renderPlan(w io.Writer, v signals.PlanView) error {
	if v.Plan == nil {
		_, err := fmt.Fprintln(w, "No plan selected yet.")
		return err
	}
	p := v.Plan
	fmt.Fprintf(w, "Plan %s: %s (version %d, %s)\n", p.ID, p.Title, p.Version, p.Status)
	if p.Template != "" {
		fmt.Fprintf(w, "Template: %s\n", p.Template)
	}
	if err := renderSteps(w, p.Steps); err != nil {
		return err
	}
	for _, e := range v.Validation.Errors {
		fmt.Fprintf(w, "invalid: %s\n", e.Message)
	}
	if n := len(p.UpdateHistory); n > 0 {
		fmt.Fprintln(w, "\nRecent changes:")
		for _, u := range p.UpdateHistory[max(0, n-5):] {
			fmt.Fprintf(w, "  v%d %s %s by %s: %s\n", u.Version, u.Type, orDash(u.StepID), u.Actor, orDash(u.Reason))
		}
	}
	return nil
}

// renderProgress prints the one-line progress summary.
func renderProgress(w io.Writer, p signals.Progress) {
	fmt.Fprintf(w, "Phase: %s (%s mode)", p.Phase, p.Mode)
	if p.Paused {
		fmt.Fprint(w, ", paused")
	}
	fmt.Fprintf(w, "  Progress: %d%% (%d/%d done, %d failed, %d skipped)", p.Percent,
		p.Totals.Completed, p.Totals.Total, p.Totals.Failed, p.Totals.Skipped)
	fmt.Fprintf(w, "  Elapsed: %s", p.Elapsed.D().Round(time.Second))
	if p.EstimatedRemaining > 0 {
		fmt.Fprintf(w, "  Remaining: ~%s", p.EstimatedRemaining.D().Round(time.Second))
	}
	if p.MaxConcurrent > 1 {
		fmt.Fprintf(w, "  Up to %d steps at once", p.MaxConcurrent)
	}
	fmt.Fprintf(w, "  Tokens: %d  Cost: $%.4f", p.Tokens, p.CostUSD)
	if p.Offline {
		fmt.Fprint(w, " (offline model)")
	}
	fmt.Fprintln(w)
	if p.CurrentStep != nil {
		fmt.Fprintf(w, "Current step: %d %s (%s)\n", p.CurrentStep.Number, p.CurrentStep.Title, p.CurrentStep.ID)
	}
	if p.LastError != "" {
		fmt.Fprintf(w, "Last error: %s\n", p.LastError)
	}
}

// renderPending prints what the plan waits for and the command that
// answers it.
func renderPending(w io.Writer, id string, p signals.Pending) {
	if ws := p.Workspace; ws != nil {
		fmt.Fprintf(w, "Waiting for workspace %q, held by %s, since %s.\n", ws.Workspace, ws.HeldBy,
			ws.Since.Format(time.RFC3339))
	}
	if s := p.Selection; s != nil {
		fmt.Fprintf(w, "Waiting for a selection among %s%s.\n", strings.Join(s.OptionIDs, ", "), deadline(s.Deadline))
	}
	if c := p.Clarification; c != nil {
		fmt.Fprintf(w, "Waiting for answers%s:\n", deadline(c.Deadline))
		for i, q := range c.Questions {
			fmt.Fprintf(w, "  %d. %s\n", i+1, q)
		}
	}
	for _, sc := range p.SkipConfirmations {
		fmt.Fprintf(w, "Skip request %s: skip %s (confidence %.0f%%): %s%s\n", sc.RequestID,
			strings.Join(sc.StepIDs, ", "), sc.Confidence*100, sc.Reason, deadline(sc.Deadline))
	}
	if p.Paused {
		fmt.Fprintln(w, "Paused.")
	}
	for _, r := range p.Rejected {
		fmt.Fprintf(w, "Rejected %s at %s: %s\n", r.Name, r.At.Format(time.RFC3339), r.Reason)
	}
	if hint := nextCommand(id, p.Awaiting, p); hint != "" {
		fmt.Fprintf(w, "Next: %s\n", hint)
	}
}

// nextCommand says what to run to give a plan what it waits for.
func nextCommand(id string, awaiting signals.Awaiting, p signals.Pending) string {
	switch awaiting {
	case signals.AwaitingSelection:
		return "planmode select " + id
	case signals.AwaitingClarification:
		return fmt.Sprintf("planmode answer %s --answer \"1=...\"", id)
	case signals.AwaitingConfirmation:
		req := "<request-id>"
		if len(p.SkipConfirmations) > 0 {
			req = p.SkipConfirmations[0].RequestID
		}
		return fmt.Sprintf("planmode confirm-skip %s %s --approve (or --deny)", id, req)
	case signals.AwaitingResume:
		return "planmode resume " + id
	}
	return ""
}

func deadline(t *time.Time) string {
	if t == nil {
		return ""
	}
	return " (until " + t.Format(time.RFC3339) + ")"
}
