package activities

import (
	"fmt"
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
	// maxRemainingListed bounds the not-yet-done steps a reflect prompt lists.
	maxRemainingListed = 10
	// maxSummaryStepsListed bounds the steps a summary prompt lists.
	maxSummaryStepsListed = 60
	// summaryDigestLen bounds each step's digest in a summary prompt.
	summaryDigestLen = 200
	// maxToolMessageLen bounds one tool result replayed in an agent turn.
	maxToolMessageLen = 8 << 10
)

// qa is one answered clarification question.
type qa struct{ Question, Answer string }

// clarifyData feeds the clarify templates.
type clarifyData struct {
	Task         plan.Task
	AskQuestions bool
	Answers      []qa
	Files        []string
	MoreFiles    bool
}

// sortedAnswers returns answers ordered by question, for stable prompts.
func sortedAnswers(m map[string]string) []qa {
	out := make([]qa, 0, len(m))
	for q, a := range m {
		out = append(out, qa{Question: q, Answer: a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Question < out[j].Question })
	return out
}

// planData feeds the plan templates.
type planData struct {
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
}

// stepData feeds the execute and agent templates.
type stepData struct {
	Context       plan.StepContext
	Prompt        string
	Workspace     string
	Tools         []string
	Iteration     int
	MaxIterations int
	Remaining     int
	Final         bool
}

// reflectData feeds the reflect templates.
type reflectData struct {
	Context       plan.StepContext
	Result        *plan.StepResult
	Remaining     []plan.StepDigest
	MoreRemaining int
	Mode          string
}

// summaryStep is one step line of a summary prompt.
type summaryStep struct {
	ID, Title string
	Status    plan.StepStatus
	Digest    string
}

// summaryTotals counts a plan's steps by status.
type summaryTotals struct {
	Total, Completed, Failed, Skipped, Cancelled, Pending int
}

// summarizeData feeds the summarize templates.
type summarizeData struct {
	Goal    string
	Status  string
	Partial bool
	Plan    plan.Plan
	Steps   []summaryStep
	More    int
	Totals  summaryTotals
}

// newSummarizeData lists a plan's steps with short digests, bounded.
func newSummarizeData(in SummarizeInput) summarizeData {
	d := summarizeData{Goal: in.Goal, Status: in.Status, Partial: in.Partial, Plan: in.Plan}
	d.Plan.Steps = nil // the template reads Steps, bounded, not the plan's own list
	for _, s := range in.Plan.Steps {
		d.Totals.Total++
		switch s.Status {
		case plan.StepCompleted:
			d.Totals.Completed++
		case plan.StepFailed:
			d.Totals.Failed++
		case plan.StepSkipped:
			d.Totals.Skipped++
		case plan.StepCancelled:
			d.Totals.Cancelled++
		default:
			d.Totals.Pending++
		}
		if len(d.Steps) == maxSummaryStepsListed {
			d.More++
			continue
		}
		d.Steps = append(d.Steps, summaryStep{ID: s.ID, Title: s.Title, Status: s.Status,
			Digest: plan.TruncateBytes(oneLine(stepDigest(s)), summaryDigestLen)})
	}
	return d
}

// stepDigest is the gist of how a step ended: its error, output or note.
func stepDigest(s plan.Step) string {
	if r := s.Result; r != nil {
		if r.Error != "" {
			return "error: " + r.Error
		}
		if r.Output != "" {
			return r.Output
		}
	}
	return s.Note
}

// plainSummary is the summary of counts used when the model returns none.
func plainSummary(d summarizeData) string {
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
