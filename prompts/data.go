package prompts

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// The data each phase's templates render. Step prompts only ever see a
// plan.StepContext, whose size does not depend on the plan's length, so
// that a run's total prompt tokens grow linearly with the number of steps.

// Bounds of the lists prompts carry.
const (
	// maxToolMessageLen bounds one tool result replayed in an agent turn.
	maxToolMessageLen = 8 << 10
)

// QA is one answered clarification question.
type QA struct{ Question, Answer string }

// ClarifyData feeds clarify_system.tmpl and clarify_user.tmpl: the Task as
// asked (goal, requirements, constraints, priority, context, earlier
// conversation in Task.History), AskQuestions when the run may ask the
// user, the Answers to questions asked before, and Files, the workspace's
// files (MoreFiles says the list was cut).
type ClarifyData struct {
	Task         plan.Task
	AskQuestions bool
	Answers      []QA
	Files        []string
	MoreFiles    bool
}

// SortedAnswers returns answers ordered by question, for stable prompts.
func SortedAnswers(m map[string]string) []QA {
	out := make([]QA, 0, len(m))
	for q, a := range m {
		out = append(out, QA{Question: q, Answer: a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Question < out[j].Question })
	return out
}

// PlanData feeds plan_system.tmpl and plan_user.tmpl. Task is the task as
// asked, Goal the clarified goal, Count the options to generate, MaxSteps
// the most steps each may have (0: no limit), Feedback and Previous the
// user's feedback and the titles of the options a refinement replaces,
// Invalid the options dropped before with their issues, Files the
// workspace's files (MoreFiles: cut), Tools what tool and agent steps may
// use (name, description). Plan fills Example and the bounds a step's
// resilience must keep (MaxRetries, MaxRetryDelay: plan.MaxStepRetries and
// plan.MaxRetryDelay).
type PlanData struct {
	Task      plan.Task
	Goal      string
	Count     int
	MaxSteps  int
	Feedback  string
	Previous  []string
	Invalid   []plan.DroppedOption
	Files     []string
	MoreFiles bool
	Tools     []llm.ToolSpec
	Example   string
	// MaxRetries and MaxRetryDelay are the bounds plan.Validate applies.
	MaxRetries    int
	MaxRetryDelay string
}

// StepData feeds execute_*.tmpl (an llm step) and agent_*.tmpl (an agent
// turn): Context, the bounded plan.StepContext (goal, the step, its
// position of Total, digests of its neighbours, a summary of older
// steps), Prompt, the step's prompt, and Workspace, its folder. An agent
// turn also has its Tools (the names of the tools whose schemas the
// request carries, so the embedded templates do not list them again) and
// where it stands: iteration Iteration of at most MaxIterations, Remaining
// after it, Final when no tools are offered.
type StepData struct {
	Context       plan.StepContext
	Prompt        string
	Workspace     string
	Tools         []string
	Iteration     int
	MaxIterations int
	Remaining     int
	Final         bool
}

// workView is the step context the prompt of a step at work shows (an
// llm step, an agent turn), from the context sc the plan gives. Of the
// steps before it, the results only of those it depends on: they are the
// results the planner said it needs, and a step it does not depend on may
// run at the same time, so its result is nothing this step can count on.
// The neighbours it does not depend on keep their titles and statuses
// (what is done already), and the account of the older steps (their
// counts by status, the failed ones) goes: a failed step it depends on
// would have blocked it, and how the others went is the reflection's to
// weigh. Of the steps after it, only the next, which marks where this
// step's work ends; its position ("7 of 50") says how many follow. sc
// itself is left alone.
func workView(sc plan.StepContext) plan.StepContext {
	sc.Summary = ""
	if len(sc.After) > 1 {
		sc.LaterCount += len(sc.After) - 1
		sc.After = sc.After[:1]
	}
	before := make([]plan.StepDigest, len(sc.Before))
	for i, b := range sc.Before {
		if !slices.Contains(sc.Step.DependsOn, b.ID) {
			b.Digest = ""
		}
		before[i] = b
	}
	if len(before) > 0 {
		sc.Before = before
	}
	return sc
}

// ReflectData feeds reflect_system.tmpl and reflect_user.tmpl; build it
// with NewReflectData. Context is the step that just ended (as in
// StepData, but its After lists only neighbours Remaining does not, and
// LaterCount is 0: Remaining says what is left), Result its result,
// Remaining digests of the steps not yet done (MoreRemaining: those not
// listed), Mode the execution mode.
type ReflectData struct {
	Context       plan.StepContext
	Result        *plan.StepResult
	Remaining     []plan.StepDigest
	MoreRemaining int
	Mode          string
}

// NewReflectData shows the step of sc that just ended with its result (the
// step's own when result is nil), the first plan.RemainingListed of the
// steps not yet done (more: how many the caller left out already), and
// the execution mode ("balanced" when empty); goal stands in for a context
// that names none. The steps after this one that the remaining list shows
// are not shown a second time as its neighbours.
func NewReflectData(goal string, sc plan.StepContext, result *plan.StepResult, remaining []plan.StepDigest,
	more int, mode string) ReflectData {
	d := ReflectData{Context: sc, Result: result, Remaining: remaining, MoreRemaining: more, Mode: mode}
	if d.Result == nil {
		d.Result = sc.Step.Result
	}
	if d.Mode == "" {
		d.Mode = "balanced"
	}
	if n := len(d.Remaining); n > plan.RemainingListed {
		d.Remaining, d.MoreRemaining = d.Remaining[:plan.RemainingListed], d.MoreRemaining+n-plan.RemainingListed
	}
	if d.Context.Goal == "" {
		d.Context.Goal = goal
	}
	d.Context.After, d.Context.LaterCount = notListed(d.Context.After, d.Remaining), 0
	return d
}

// notListed returns the digests of after whose step listed does not name.
func notListed(after, listed []plan.StepDigest) []plan.StepDigest {
	var out []plan.StepDigest
	for _, a := range after {
		if !slices.ContainsFunc(listed, func(l plan.StepDigest) bool { return l.ID == a.ID }) {
			out = append(out, a)
		}
	}
	return out
}

// maxChangesListed bounds the file changes a reflection lists by path.
const maxChangesListed = 10

// changes returns "path (op), ..." for the first maxChangesListed file
// changes, and how many more there are.
func changes(fc []plan.FileChange) string {
	var parts []string
	for _, c := range fc[:min(len(fc), maxChangesListed)] {
		parts = append(parts, fmt.Sprintf("%s (%s)", plan.Truncate(c.Path, 200), c.Op))
	}
	if n := len(fc) - maxChangesListed; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more", n))
	}
	return strings.Join(parts, ", ")
}

// summaryTotals counts a plan's steps by status; Pending counts every
// step that did not end (running ones too).
type summaryTotals struct {
	Total, Completed, Failed, Skipped, Cancelled, Pending int
}

// SummarizeData feeds summarize_system.tmpl and summarize_user.tmpl;
// build it with NewSummarizeData. Goal and Status (completed, failed,
// cancelled) describe the run, Partial says it did not finish, Plan holds
// the plan's title only, Steps one line per step (ID, Title, Status,
// Digest) up to plan.DigestSteps, within SummaryListBytes together
// (boundSteps), More the steps left out, Totals the counts by status
// (Total, Completed, Failed, Skipped, Cancelled, Pending).
type SummarizeData struct {
	Goal    string
	Status  string
	Partial bool
	Plan    plan.Plan
	Steps   []plan.StepDigest
	More    int
	Totals  summaryTotals
}

// NewSummarizeData shows d, the digest of the plan of a run that ended
// with status (partial when it did not finish).
func NewSummarizeData(goal, status string, partial bool, d plan.PlanDigest) SummarizeData {
	t := d.Totals
	return SummarizeData{Goal: goal, Status: status, Partial: partial, Plan: plan.Plan{Title: d.Title},
		Steps: boundSteps(d.Steps, SummaryListBytes), More: d.More,
		Totals: summaryTotals{Total: t.Total, Completed: t.Completed, Failed: t.Failed, Skipped: t.Skipped,
			Cancelled: t.Cancelled, Pending: t.Pending + t.Running}}
}

// Plain is the summary of counts used when the model returns none.
func (d SummarizeData) Plain() string {
	return fmt.Sprintf("Goal: %s\nStatus: %s. %d of %d steps completed, %d failed, %d skipped, %d cancelled.",
		d.Goal, d.Status, d.Totals.Completed, d.Totals.Total, d.Totals.Failed, d.Totals.Skipped, d.Totals.Cancelled)
}

// Bounds of the earlier conversation the clarify and plan prompts show,
// so that a long history never grows prompts.
const (
	// maxHistoryChars bounds the content shown in all: the most recent
	// messages that fit.
	maxHistoryChars = 6 << 10
	// maxHistoryMessageChars bounds one message's content.
	maxHistoryMessageChars = 2 << 10
)

// historyView is the tail of a conversation as a prompt shows it.
type historyView struct {
	// Lines are the shown messages, oldest first: "[role] text", with the
	// message's further lines marked "  | " so that no line of it reads
	// as one of the prompt's own labels.
	Lines []string
	// Omitted counts the earlier messages left out.
	Omitted int
}

// historyTail keeps the most recent messages of h whose content, each
// clipped to maxHistoryMessageChars, fits in maxHistoryChars together.
func historyTail(h []plan.Message) historyView {
	used, first := 0, len(h)
	for i := len(h) - 1; i >= 0; i-- {
		n := min(len(h[i].Content), maxHistoryMessageChars)
		if used+n > maxHistoryChars {
			break
		}
		used += n
		first = i
	}
	v := historyView{Omitted: first}
	for _, m := range h[first:] {
		text := strings.ReplaceAll(strings.TrimSpace(m.Content), "\r\n", "\n")
		for i, l := range strings.Split(plan.TruncateBytes(text, maxHistoryMessageChars), "\n") {
			if i == 0 {
				v.Lines = append(v.Lines, fmt.Sprintf("[%s] %s", m.Role, l))
				continue
			}
			v.Lines = append(v.Lines, "  | "+l)
		}
	}
	return v
}
