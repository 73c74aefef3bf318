package view

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// Bounds of the current details. The Web UI fetches them with every view
// of the run, so they stay a few KiB whatever the plan's size: tables and
// texts are capped, and the whole is cut at maxDetailsBytes as a last
// resort.
const (
	maxDetailsBytes = 8 << 10
	maxStepRows     = 15
	// stepRowsBefore is how many finished steps stay in view before the
	// first open one when the table cannot show every step.
	stepRowsBefore = 5
	maxOptionRows  = 10
	maxQuestions   = 5
	maxSkipRows    = 3
	titleWidth     = 50
	digestWidth    = 60
	textWidth      = 200
)

// details is the markdown account of the run the Web UI shows as current
// details: where the run is, what it waits for with the exact commands
// that answer it, the options or the steps, and the usage. It only reads
// state, so publishing it at every change is not a command and replays
// stay valid.
func Details(r Run) string {
	var p page
	detailsHeader(&p, r)
	if r.Clarify.Waiting {
		detailsQuestions(&p, r)
	}
	if r.State.Plan == nil && len(r.State.Options.Options) > 0 {
		detailsOptions(&p, r)
	}
	if r.State.Plan != nil {
		detailsSteps(&p, r)
	}
	if len(r.State.SkipConfirmations) > 0 {
		detailsSkips(&p, r)
	}
	if len(r.State.Approvals) > 0 {
		detailsApprovals(&p, r)
	}
	if r.State.Paused {
		detailsPaused(&p, r)
	}
	if len(r.State.RecentEvents) > 0 {
		detailsEvents(&p, r)
	}
	detailsFooter(&p, r)
	return plan.TruncateBytes(p.String(), maxDetailsBytes)
}

// detailsHeader writes the phase, mode, goal and what the run waits for.
func detailsHeader(p *page, r Run) {
	p.f("**Phase:** %s · **Mode:** %s", orDash(string(r.State.Phase)), Mode(r))
	if r.State.Runs > 0 {
		p.f(" · **Run:** %d (continued as new)", r.State.Runs+1)
	}
	p.f("\n\n**Goal:** %s", inline(r.State.Goal, textWidth))
	if f := r.State.ForkedFrom; f != nil {
		p.f("\n\n**Forked from:** %s after step %s · `planmode show %s`", inline(f.PlanID, textWidth),
			inline(f.StepID, textWidth), inline(f.PlanID, textWidth))
	}
	if a := Awaiting(r); a != signals.AwaitingNone {
		p.f("\n\n**Waiting for %s**%s", a, waitDeadline(r, a))
	}
	if r.Refining {
		p.WriteString("\n\n*Refining the options from feedback…*")
	}
}

// waitDeadline says until when the run waits and what happens then.
func waitDeadline(r Run, a signals.Awaiting) string {
	switch {
	case a == signals.AwaitingSelection && r.State.Options.SelectionTimeout != nil:
		return fmt.Sprintf(" until %s, then %s", stamp(*r.State.Options.SelectionTimeout), r.Request.Selection.OnTimeout)
	case a == signals.AwaitingClarification && r.Clarify.Deadline != nil:
		return fmt.Sprintf(" until %s, then proceeds with the answers given", stamp(*r.Clarify.Deadline))
	case a == signals.AwaitingWorkspace && r.WorkspaceWait != nil:
		return fmt.Sprintf(" `%s`, held by %s since %s", inline(r.WorkspaceWait.Workspace, textWidth),
			inline(r.WorkspaceWait.HeldBy, textWidth), stamp(r.WorkspaceWait.Since))
	}
	return ""
}

// detailsQuestions writes the open questions and how to answer them.
func detailsQuestions(p *page, r Run) {
	p.section("Questions")
	var keys []string
	shown := 0
	for i, q := range r.Clarify.Questions {
		if _, ok := r.Clarify.Answers[q]; ok {
			continue
		}
		if shown == maxQuestions {
			p.f("\n… and %d more (see the pending query)\n", len(r.Clarify.Unanswered())-shown)
			break
		}
		shown++
		p.f("%d. %s\n", i+1, inline(q, textWidth))
		keys = append(keys, fmt.Sprintf("%d", i+1))
	}
	if len(keys) == 0 {
		return
	}
	p.WriteString("\nAnswer by question number (or its full text):")
	var js, flags []string
	for _, k := range keys {
		js = append(js, fmt.Sprintf("%s:%s", jsonString(k), jsonString("your answer")))
		flags = append(flags, fmt.Sprintf("--answer %s", shellQuote(k+"=your answer")))
	}
	input := fmt.Sprintf(`{"answers":{%s}}`, strings.Join(js, ","))
	p.commands(
		"Temporal CLI", updateCommand(r, signals.AnswerClarification.Name, input),
		"planmode CLI", fmt.Sprintf("planmode answer %s %s", shellQuote(r.WorkflowID), strings.Join(flags, " ")),
	)
}

// detailsPaused writes why the run is paused and how to resume it.
func detailsPaused(p *page, r Run) {
	p.section("Paused")
	if r.State.PauseReason != "" {
		p.f("**Reason:** %s\n\n", inline(r.State.PauseReason, textWidth))
	}
	p.WriteString("Execution stops at the next step boundary until resumed:")
	p.commands(
		"Temporal CLI", updateCommand(r, signals.Resume.Name, "{}"),
		"planmode CLI", "planmode resume "+shellQuote(r.WorkflowID),
	)
}

// detailsFooter writes the last error, the last refused input and the
// usage.
func detailsFooter(p *page, r Run) {
	p.WriteString("\n\n---")
	if r.State.LastError != "" {
		p.f("\n\n**Last error:** %s", inline(r.State.LastError, textWidth))
	}
	if n := len(r.State.Rejected); n > 0 {
		rej := r.State.Rejected[n-1]
		p.f("\n\n**Last refused input:** `%s`", rej.Name)
		if rej.By != "" {
			p.f(" from %s", inline(rej.By, titleWidth))
		}
		p.f(" — %s", inline(rej.Reason, textWidth))
	}
	u := r.State.Usage
	p.f("\n\n**Usage:** %d tokens (%d prompt, %d completion) · $%.4f · %d LLM calls", u.TotalTokens, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.Calls)
	if r.State.Offline {
		p.WriteString(" · **offline model**")
	}
}

// detailsEventCount is how many of the log's last events the details
// show.
const detailsEventCount = 8

// detailsEvents writes the last events of the plan's log, newest first,
// and how to follow it.
func detailsEvents(p *page, r Run) {
	p.section("Recent events")
	evs := r.State.RecentEvents
	for i := len(evs) - 1; i >= 0 && i >= len(evs)-detailsEventCount; i-- {
		e := evs[i]
		p.f("\n- `%d` %s **%s** %s", e.Seq, stamp(e.At), e.Type, inline(e.Message, textWidth))
	}
	p.f("\n\nFollow them: `planmode watch %s --follow`", shellQuote(r.WorkflowID))
}

// updateCommand is the Temporal CLI command that sends update name with
// the JSON input to this run.
func updateCommand(r Run, name, input string) string {
	ns := ""
	if r.Namespace != "" && r.Namespace != "default" {
		ns = " --namespace " + shellQuote(r.Namespace)
	}
	return fmt.Sprintf("temporal workflow update execute --workflow-id %s%s --name %s --input %s",
		shellQuote(r.WorkflowID), ns, name, shellQuote(input))
}

// statusMark is a step status as a mark that reads at a glance.
func statusMark(s plan.StepStatus) string {
	switch s {
	case plan.StepCompleted:
		return "✓"
	case plan.StepRunning:
		return "▶"
	case plan.StepRetrying:
		return "↻"
	case plan.StepFailed:
		return "✗"
	case plan.StepSkipped:
		return "↷"
	case plan.StepCancelled:
		return "⊘"
	}
	return "○"
}
