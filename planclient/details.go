package planclient

import (
	"fmt"
	"sort"
	"strings"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// MaxStaticDetailsBytes bounds the run details the Web UI shows. The
// server refuses a start whose details are too large (20 KB by default),
// so they stay well below.
const MaxStaticDetailsBytes = 16 << 10

// StaticDetails returns the markdown the Web UI shows beside a run: the
// goal, requirements, constraints, workspace and every policy, defaults
// filled in, so an operator sees what the plan was asked to do without
// decoding its input. It is cut to MaxStaticDetailsBytes.
func StaticDetails(req signals.StartRequest) string {
	r := req.WithDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "**Goal:** %s\n", strings.TrimSpace(r.Goal))
	list(&b, "Requirements", r.Requirements)
	list(&b, "Constraints", r.Constraints)
	b.WriteString("\n")
	fmt.Fprintf(&b, "- **Workspace:** %s\n", orDefault(code(r.Workspace), "the worker's"))
	fmt.Fprintf(&b, "- **Priority:** %s\n", r.Priority)
	fmt.Fprintf(&b, "- **Options:** %d\n", r.OptionCount)
	if r.Template != "" {
		fmt.Fprintf(&b, "- **Template:** %s\n", code(r.Template))
	}
	b.WriteString("\n**Policies**\n\n")
	fmt.Fprintf(&b, "- **Selection:** %s\n", selectionPolicy(r.Selection))
	fmt.Fprintf(&b, "- **Execution:** %s\n", executionPolicy(r.Execution))
	fmt.Fprintf(&b, "- **Clarification:** %s\n", clarifyPolicy(r.Clarify))
	fmt.Fprintf(&b, "- **Budget:** %s\n", budget(r.Budget))
	if len(r.Ranking) > 0 {
		fmt.Fprintf(&b, "- **Ranking:** %s\n", ranking(r.Ranking))
	}
	if r.Notify.WebhookURL != "" {
		// The URL may carry a token: say only that the plan has its own.
		b.WriteString("- **Webhook:** the plan's own\n")
	}
	if p := prompts(r); p != "" {
		fmt.Fprintf(&b, "- **Extra prompts:** %s\n", p)
	}
	return plan.TruncateBytes(b.String(), MaxStaticDetailsBytes)
}

// ranking lists the criteria with their weights.
func ranking(cs []plan.Criterion) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		w := c.Weight
		if w == 0 {
			w = 1
		}
		parts[i] = fmt.Sprintf("%s ×%g", c.Name, w)
	}
	return strings.Join(parts, ", ")
}

// list writes a markdown list under a bold title; nothing when items is
// empty.
func list(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**%s**\n\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", strings.Join(strings.Fields(it), " "))
	}
}

func selectionPolicy(p signals.SelectionPolicy) string {
	if p.Mode == signals.SelectAuto {
		return "auto (the recommended option at once)"
	}
	if p.Timeout == 0 {
		return "manual, waits for ever"
	}
	return fmt.Sprintf("manual, waits %s, then %s", p.Timeout, p.OnTimeout)
}

func executionPolicy(p signals.ExecutionPolicy) string {
	s := fmt.Sprintf("%s, skip confidence threshold %.2f", p.Mode, p.SkipConfidenceThreshold)
	if p.ConfirmTimeout > 0 {
		s += fmt.Sprintf(", skip confirmations wait %s then %s", p.ConfirmTimeout, p.OnConfirmTimeout)
	}
	return s + fmt.Sprintf(", at most %d steps and %d iterations per step, %d at once",
		p.MaxSteps, p.MaxIterationsPerStep, p.Parallelism)
}

func clarifyPolicy(p signals.ClarifyPolicy) string {
	if !p.AskQuestions {
		return "no questions"
	}
	if p.Timeout == 0 {
		return "may ask questions, waits for ever"
	}
	return fmt.Sprintf("may ask questions, waits %s", p.Timeout)
}

func budget(b signals.Budget) string {
	var parts []string
	if b.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", b.MaxTokens))
	}
	if b.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", b.MaxCostUSD))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ") + ", then " + string(b.OnExceed)
}

// prompts names the extra prompts (system, then phases) without their
// text, which may be long.
func prompts(r signals.StartRequest) string {
	var parts []string
	if r.SystemPrompt != "" {
		parts = append(parts, "system")
	}
	phases := make([]string, 0, len(r.PhasePrompts))
	for phase, p := range r.PhasePrompts {
		if p != "" {
			phases = append(phases, phase)
		}
	}
	sort.Strings(phases)
	return strings.Join(append(parts, phases...), ", ")
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
