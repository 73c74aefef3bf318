package workflows

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
func (r *run) details() string {
	var p page
	r.detailsHeader(&p)
	if r.clarify.waiting {
		r.detailsQuestions(&p)
	}
	if r.st.Plan == nil && len(r.st.Options.Options) > 0 {
		r.detailsOptions(&p)
	}
	if r.st.Plan != nil {
		r.detailsSteps(&p)
	}
	if len(r.st.SkipConfirmations) > 0 {
		r.detailsSkips(&p)
	}
	if r.st.Paused {
		r.detailsPaused(&p)
	}
	r.detailsFooter(&p)
	return plan.TruncateBytes(p.String(), maxDetailsBytes)
}

// detailsHeader writes the phase, mode, goal and what the run waits for.
func (r *run) detailsHeader(p *page) {
	p.f("**Phase:** %s · **Mode:** %s", orDash(string(r.st.Phase)), r.mode())
	if r.st.Runs > 0 {
		p.f(" · **Run:** %d (continued as new)", r.st.Runs+1)
	}
	p.f("\n\n**Goal:** %s", inline(r.st.Goal, textWidth))
	if a := r.awaiting(); a != signals.AwaitingNone {
		p.f("\n\n**Waiting for %s**%s", a, r.waitDeadline(a))
	}
	if r.sel.refining {
		p.WriteString("\n\n*Refining the options from feedback…*")
	}
}

// waitDeadline says until when the run waits and what happens then.
func (r *run) waitDeadline(a signals.Awaiting) string {
	switch {
	case a == signals.AwaitingSelection && r.st.Options.SelectionTimeout != nil:
		return fmt.Sprintf(" until %s, then %s", stamp(*r.st.Options.SelectionTimeout), r.req.Selection.OnTimeout)
	case a == signals.AwaitingClarification && r.clarify.deadline != nil:
		return fmt.Sprintf(" until %s, then proceeds with the answers given", stamp(*r.clarify.deadline))
	case a == signals.AwaitingWorkspace && r.workspaceWait != nil:
		return fmt.Sprintf(" `%s`, held by %s since %s", inline(r.workspaceWait.Workspace, textWidth),
			inline(r.workspaceWait.HeldBy, textWidth), stamp(r.workspaceWait.Since))
	}
	return ""
}

// detailsQuestions writes the open questions and how to answer them.
func (r *run) detailsQuestions(p *page) {
	p.section("Questions")
	var keys []string
	shown := 0
	for i, q := range r.clarify.questions {
		if _, ok := r.clarify.answers[q]; ok {
			continue
		}
		if shown == maxQuestions {
			p.f("\n… and %d more (see the pending query)\n", len(r.unanswered())-shown)
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
		"Temporal CLI", r.updateCommand(signals.AnswerClarification.Name, input),
		"planmode CLI", fmt.Sprintf("planmode answer %s %s", shellQuote(r.workflowID), strings.Join(flags, " ")),
	)
}

// detailsPaused writes why the run is paused and how to resume it.
func (r *run) detailsPaused(p *page) {
	p.section("Paused")
	if r.st.PauseReason != "" {
		p.f("**Reason:** %s\n\n", inline(r.st.PauseReason, textWidth))
	}
	p.WriteString("Execution stops at the next step boundary until resumed:")
	p.commands(
		"Temporal CLI", r.updateCommand(signals.Resume.Name, "{}"),
		"planmode CLI", "planmode resume "+shellQuote(r.workflowID),
	)
}

// detailsFooter writes the last error, the last refused input and the
// usage.
func (r *run) detailsFooter(p *page) {
	p.WriteString("\n\n---")
	if r.st.LastError != "" {
		p.f("\n\n**Last error:** %s", inline(r.st.LastError, textWidth))
	}
	if n := len(r.st.Rejected); n > 0 {
		rej := r.st.Rejected[n-1]
		p.f("\n\n**Last refused input:** `%s`", rej.Name)
		if rej.By != "" {
			p.f(" from %s", inline(rej.By, titleWidth))
		}
		p.f(" — %s", inline(rej.Reason, textWidth))
	}
	u := r.st.Usage
	p.f("\n\n**Usage:** %d tokens (%d prompt, %d completion) · $%.4f · %d LLM calls", u.TotalTokens, u.PromptTokens, u.CompletionTokens, u.CostUSD, u.Calls)
	if r.st.Offline {
		p.WriteString(" · **offline model**")
	}
}

// updateCommand is the Temporal CLI command that sends update name with
// the JSON input to this run.
func (r *run) updateCommand(name, input string) string {
	ns := ""
	if r.namespace != "" && r.namespace != "default" {
		ns = " --namespace " + shellQuote(r.namespace)
	}
	return fmt.Sprintf("temporal workflow update execute --workflow-id %s%s --name %s --input %s",
		shellQuote(r.workflowID), ns, name, shellQuote(input))
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
