package signals

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"go.temporal.io/sdk/workflow"

	"github.com/planmode/planmode/plan"
)

// Validate reports every problem of a request, all at once: a missing
// goal, an unknown name, a number, duration, text or list beyond the
// bounds of limits.go, a request larger than MaxStartRequestBytes as JSON.
// Each problem names the field, its value (or size) and the bound. The
// workflow calls it first, so an invalid request fails its run at once;
// planclient.Client.Start and the CLI call it before starting anything.
func (r StartRequest) Validate() error {
	var errs []string
	errs = append(errs, textProblems(r)...)
	errs = append(errs, choiceProblems(r)...)
	errs = append(errs, executionProblems(r.Execution)...)
	errs = append(errs, waitProblems(r)...)
	errs = append(errs, budgetProblems(r.Budget)...)
	errs = append(errs, r.Approval.Problems("approval")...)
	errs = append(errs, historyProblems(r.History)...)
	errs = append(errs, checkpointProblems(r.Checkpoint)...)
	errs = append(errs, externalPlanProblems(r)...)
	errs = append(errs, forkProblems(r.Fork)...)
	if err := r.Deadline.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	errs = append(errs, sizeProblems(r)...)
	if len(errs) > 0 {
		return fmt.Errorf("invalid start request: %s", strings.Join(bounded(errs), "; "))
	}
	return nil
}

// Bounds of a refusal: it ends up in the failed run's history and in
// logs, so it stays small whatever the request held.
const (
	maxProblems     = 20
	maxProblemBytes = 512
)

// bounded cuts each problem to maxProblemBytes and keeps the first
// maxProblems, counting the rest.
func bounded(errs []string) []string {
	out := make([]string, 0, min(len(errs), maxProblems)+1)
	for i, e := range errs {
		if i == maxProblems {
			out = append(out, fmt.Sprintf("and %d more problems", len(errs)-maxProblems))
			break
		}
		out = append(out, plan.TruncateBytes(e, maxProblemBytes))
	}
	return out
}

// textProblems checks the goal and every free text, list and name of r
// against their bounds.
func textProblems(r StartRequest) []string {
	var errs []string
	if strings.TrimSpace(r.Goal) == "" && r.Fork == nil {
		errs = append(errs, "goal is required")
	}
	errs = appendSize(errs, "goal", r.Goal, MaxGoalBytes)
	errs = append(errs, listProblems("requirements", r.Requirements)...)
	errs = append(errs, listProblems("constraints", r.Constraints)...)
	errs = appendSize(errs, "workspace", r.Workspace, MaxPathBytes)
	errs = appendSize(errs, "template", r.Template, MaxNameBytes)
	errs = appendSize(errs, "tenant", r.Tenant, MaxNameBytes)
	if strings.IndexFunc(r.Tenant, unicode.IsControl) >= 0 {
		errs = append(errs, "tenant holds a control character")
	}
	if t := r.Template; t != "" && t != plan.TemplateAuto && len(t) <= MaxNameBytes && !slices.Contains(plan.TemplateNames(), t) {
		errs = append(errs, fmt.Sprintf("template %q is unknown: use one of %s, %q, or none", t,
			strings.Join(plan.TemplateNames(), ", "), plan.TemplateAuto))
	}
	errs = appendSize(errs, "systemPrompt", r.SystemPrompt, MaxPromptBytes)
	for _, phase := range workflow.DeterministicKeys(r.PhasePrompts) {
		field := fmt.Sprintf("phasePrompts[%q]", plan.TruncateBytes(phase, MaxNameBytes))
		if !slices.Contains(PromptPhases(), plan.Phase(phase)) {
			errs = append(errs, fmt.Sprintf("%s: unknown phase: want %s", field, phaseList()))
		}
		errs = appendSize(errs, field, r.PhasePrompts[phase], MaxPromptBytes)
	}
	if u := r.Notify.WebhookURL; u != "" {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, "notify.webhookURL must be an http or https URL")
		}
		errs = appendSize(errs, "notify.webhookURL", u, MaxURLBytes)
	}
	return errs
}

// listProblems checks a list of free texts: at most MaxListItems items of
// at most MaxTextBytes each.
func listProblems(field string, items []string) []string {
	var errs []string
	if len(items) > MaxListItems {
		errs = append(errs, fmt.Sprintf("%s has %d items: at most %d", field, len(items), MaxListItems))
	}
	for i, s := range items {
		errs = appendSize(errs, fmt.Sprintf("%s[%d]", field, i), s, MaxTextBytes)
	}
	return errs
}

// choiceProblems checks the fields that name one of a few values.
func choiceProblems(r StartRequest) []string {
	var errs []string
	switch r.Priority {
	case "", plan.PriorityLow, plan.PriorityMedium, plan.PriorityHigh, plan.PriorityCritical:
	default:
		errs = append(errs, fmt.Sprintf("priority %q: want low, medium, high or critical", short(string(r.Priority))))
	}
	if r.OptionCount < 0 || r.OptionCount > MaxOptionCount {
		errs = append(errs, fmt.Sprintf("optionCount must be 1..%d, not %d", MaxOptionCount, r.OptionCount))
	}
	if err := plan.ValidateCriteria(r.Ranking); err != nil {
		errs = append(errs, "ranking: "+err.Error())
	}
	switch r.Selection.Mode {
	case "", SelectManual, SelectAuto:
	default:
		errs = append(errs, fmt.Sprintf("selection.mode %q: want manual or auto", short(string(r.Selection.Mode))))
	}
	switch r.Selection.OnTimeout {
	case "", OnTimeoutRecommended, OnTimeoutCancel:
	default:
		errs = append(errs, fmt.Sprintf("selection.onTimeout %q: want recommended or cancel", short(string(r.Selection.OnTimeout))))
	}
	switch r.Budget.OnExceed {
	case "", BudgetStop, BudgetPause:
	default:
		errs = append(errs, fmt.Sprintf("budget.onExceed %q: want stop or pause", short(string(r.Budget.OnExceed))))
	}
	switch r.OnBusy {
	case "", OnBusyRefuse, OnBusyWait:
	default:
		errs = append(errs, fmt.Sprintf("onBusy %q: want refuse or wait", short(string(r.OnBusy))))
	}
	return errs
}

// executionProblems checks the execution policy.
func executionProblems(e ExecutionPolicy) []string {
	var errs []string
	switch e.Mode {
	case "", ExecComplete, ExecBalanced, ExecEfficient:
	default:
		errs = append(errs, fmt.Sprintf("execution.mode %q: want complete, balanced or efficient", short(string(e.Mode))))
	}
	switch e.OnConfirmTimeout {
	case "", OnTimeoutApprove, OnTimeoutDeny:
	default:
		errs = append(errs, fmt.Sprintf("execution.onConfirmTimeout %q: want approve or deny", short(string(e.OnConfirmTimeout))))
	}
	if t := e.SkipConfidenceThreshold; !(t >= 0 && t <= 1) {
		errs = append(errs, fmt.Sprintf("execution.skipConfidenceThreshold %v must be within 0..1", t))
	}
	errs = appendRange(errs, "execution.maxIterationsPerStep", e.MaxIterationsPerStep, MaxIterationsPerStep)
	errs = appendRange(errs, "execution.maxSteps", e.MaxSteps, MaxSteps)
	errs = appendRange(errs, "execution.parallelism", e.Parallelism, MaxParallelism)
	switch h := e.HeartbeatTimeout; {
	case h != 0 && h < MinHeartbeatTimeout:
		errs = append(errs, fmt.Sprintf("execution.heartbeatTimeout %s: want at least %s", h, MinHeartbeatTimeout))
	case h > MaxHeartbeatTimeout:
		errs = append(errs, fmt.Sprintf("execution.heartbeatTimeout %s: at most %s", h, MaxHeartbeatTimeout))
	}
	return errs
}

// waitProblems checks each wait for a person: zero (for ever) or up to
// MaxWait.
func waitProblems(r StartRequest) []string {
	var errs []string
	for _, w := range []struct {
		field string
		d     plan.Duration
	}{
		{"selection.timeout", r.Selection.Timeout},
		{"execution.confirmTimeout", r.Execution.ConfirmTimeout},
		{"clarify.timeout", r.Clarify.Timeout},
	} {
		switch {
		case w.d < 0:
			errs = append(errs, fmt.Sprintf("%s %s: timeouts must not be negative", w.field, w.d))
		case w.d > MaxWait:
			errs = append(errs, fmt.Sprintf("%s %s: at most %s (zero waits for ever)", w.field, w.d, MaxWait))
		}
	}
	return errs
}

// budgetProblems checks that the budgets are finite and not negative.
func budgetProblems(b Budget) []string {
	var errs []string
	if b.MaxTokens < 0 {
		errs = append(errs, fmt.Sprintf("budget.maxTokens %d must not be negative", b.MaxTokens))
	}
	if c := b.MaxCostUSD; !(c >= 0) || math.IsInf(c, 1) {
		errs = append(errs, fmt.Sprintf("budget.maxCostUSD %v must be a finite number of 0 or more", c))
	}
	return errs
}

// sizeProblems checks r's size as JSON, which is what the workflow's
// input carries: a plan handed in against MaxPlanBytes, the rest against
// MaxStartRequestBytes. The checkpoint is left out: it is the run's own
// state, bounded by the plan's bounds, and only a run writes it.
func sizeProblems(r StartRequest) []string {
	p := r.Plan
	r.Checkpoint, r.Plan = nil, nil
	// Encoding sorts map keys: the size is the same in the workflow and
	// on replay.
	b, err := json.Marshal(r) //workflowcheck:ignore
	switch {
	case err != nil:
		return []string{fmt.Sprintf("request cannot be encoded as JSON: %v", err)}
	case len(b) > MaxStartRequestBytes:
		return []string{fmt.Sprintf("request is %d bytes of JSON: at most %d (256 KiB)", len(b), MaxStartRequestBytes)}
	}
	if p == nil {
		return nil
	}
	b, err = json.Marshal(p) //workflowcheck:ignore
	switch {
	case err != nil:
		return []string{fmt.Sprintf("plan cannot be encoded as JSON: %v", err)}
	case len(b) > MaxPlanBytes:
		return []string{fmt.Sprintf("plan is %d bytes of JSON: at most %d (1 MiB)", len(b), MaxPlanBytes)}
	}
	return nil
}

// PromptPhases returns the phases a request's phasePrompts may name.
func PromptPhases() []plan.Phase {
	return []plan.Phase{plan.PhaseClarifying, plan.PhasePlanning, plan.PhaseExecuting, plan.PhaseReflecting, plan.PhaseSummarizing}
}

// phaseList is "clarifying, planning, …" for error messages.
func phaseList() string {
	var names []string
	for _, p := range PromptPhases() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// appendSize appends a problem when text is longer than most bytes.
func appendSize(errs []string, field, text string, most int) []string {
	if len(text) > most {
		errs = append(errs, fmt.Sprintf("%s is %d bytes: at most %d", field, len(text), most))
	}
	return errs
}

// appendRange appends a problem when n is negative or above most; zero
// takes the default.
func appendRange(errs []string, field string, n, most int) []string {
	if n < 0 || n > most {
		errs = append(errs, fmt.Sprintf("%s %d must be within 0..%d (0 takes the default)", field, n, most))
	}
	return errs
}

// short cuts a quoted value in an error message, so a refusal stays small
// whatever was sent.
func short(s string) string { return plan.TruncateBytes(s, MaxNameBytes) }
