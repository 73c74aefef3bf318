package view

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// selectingRun is a run waiting for a selection among two ranked options.
func selectingRun() *Run {
	opts := plan.Rank([]plan.Option{
		option("Careful", plan.ComplexityLow, 0.9, llmSteps(3)...),
		option("Quick", plan.ComplexityHigh, 0.5, llmSteps(2)...),
	})
	for i := range opts {
		opts[i].ID = fmt.Sprintf("r1-o%d", i+1)
		opts[i].Rank = i + 1
		opts[i].Plan.Estimates.Duration = plan.Duration(45 * time.Minute)
	}
	opts[0].Recommended = true
	r := &Run{WorkflowID: "plan-42", Namespace: "default", Selecting: true, Request: &signals.StartRequest{}}
	r.State = &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseAwaitingSelection, Goal: "Add JWT authentication",
		Options: signals.OptionsView{Revision: 1, Options: opts, Comparison: plan.Compare(opts)}}}
	return r
}

// inputs returns the --input payloads of the Temporal CLI commands in md,
// unquoted as a shell would.
func inputs(t *testing.T, md string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`--input '((?:[^']|'\\'')*)'`).FindAllStringSubmatch(md, -1) {
		out = append(out, strings.ReplaceAll(m[1], `'\''`, "'"))
	}
	return out
}

// decode unmarshals a command's JSON input strictly into T.
func decode[T any](t *testing.T, input string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(input))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&v), input)
	return v
}

func TestDetailsWhileAwaitingSelection(t *testing.T) {
	r := selectingRun()
	dl := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	r.State.Options.SelectionTimeout = &dl
	r.Request.Selection.OnTimeout = signals.OnTimeoutRecommended
	got := Details(*r)

	for _, want := range []string{
		"**Phase:** awaiting-selection · **Mode:** plan",
		"**Goal:** Add JWT authentication",
		"**Waiting for selection** until 2030-01-02 03:04:05 UTC, then recommended",
		"#### Options (revision 1)",
		"| 1 | Careful `r1-o1` | ",
		"| low | 45m0s | 90% | Low | 3 | ★ recommended |",
		"| 2 | Quick `r1-o2` | ",
		"| high | 45m0s | 50% | Low | 2 |  |",
		"Recommended: \"Careful\"",
		"temporal workflow update execute --workflow-id plan-42 --name select-option --input '{\"rank\":1}'\n",
		"planmode select plan-42 --rank 1\n",
		"temporal workflow update execute --workflow-id plan-42 --name refine-plan --input '{\"feedback\":\"what to change\"}'\n",
		"planmode refine plan-42 --feedback 'what to change'\n",
		"send the signal `select-option` with `{\"rank\":1}`",
		"`{\"optionId\":\"r1-o1\"}`",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "--namespace", "the default namespace needs no flag")
	assert.NotContains(t, got, "#### Plan", "no plan before selection")

	in := inputs(t, got)
	require.Len(t, in, 2)
	assert.Equal(t, signals.SelectOptionRequest{Rank: 1}, decode[signals.SelectOptionRequest](t, in[0]))
	assert.Equal(t, signals.RefinePlanRequest{Feedback: "what to change"}, decode[signals.RefinePlanRequest](t, in[1]))
}

func TestDetailsOptionsAfterSelectionHaveNoCommands(t *testing.T) {
	r := selectingRun()
	r.Selecting = false
	r.State.Options.SelectedID = "r1-o2"
	r.State.Phase = plan.PhaseExecuting
	got := Details(*r)

	assert.Contains(t, got, "| 2 | Quick `r1-o2` |")
	assert.Contains(t, got, "✔ selected")
	assert.NotContains(t, got, "Waiting for")
	assert.NotContains(t, got, "select-option")
}

func TestDetailsWhileRefining(t *testing.T) {
	r := selectingRun()
	r.Refining = true
	got := Details(*r)

	assert.Contains(t, got, "Refining the options from feedback")
	assert.NotContains(t, got, "--name select-option", "no selection is taken while refining")
}

func TestDetailsWhileAwaitingClarification(t *testing.T) {
	r := &Run{WorkflowID: "plan 7", Namespace: "team-a", Request: &signals.StartRequest{}, State: &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseClarifying, Goal: "Add auth"}}}
	r.Clarify = Clarification{
		Questions: []string{"Which provider?", "Keep | sessions?", "Refresh tokens?"},
		Answers:   map[string]string{"Which provider?": "ours"},
		Waiting:   true,
	}
	got := Details(*r)

	assert.Contains(t, got, "**Waiting for clarification**")
	assert.Contains(t, got, "#### Questions\n\n2. Keep \\| sessions?\n3. Refresh tokens?\n")
	assert.NotContains(t, got, "1. Which provider?", "answered questions are not asked again")
	assert.Contains(t, got, "temporal workflow update execute --workflow-id 'plan 7' --namespace team-a --name answer-clarification --input ")
	assert.Contains(t, got, "planmode answer 'plan 7' --answer '2=your answer' --answer '3=your answer'\n")

	in := inputs(t, got)
	require.Len(t, in, 1)
	req := decode[signals.AnswerClarificationRequest](t, in[0])
	assert.Equal(t, map[string]string{"2": "your answer", "3": "your answer"}, req.Answers)
}

func TestDetailsSkipConfirmations(t *testing.T) {
	dl := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	r := &Run{WorkflowID: "plan-9", Request: &signals.StartRequest{}, State: &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseReflecting, Goal: "g"},
		ExecutionState: signals.ExecutionState{Plan: &plan.Plan{Title: "P", Steps: []plan.Step{
			{ID: "s1", Number: 1, Title: "One", Status: plan.StepCompleted},
			{ID: "s2", Number: 2, Title: "Two", Status: plan.StepPending},
		}}}}}
	r.State.SkipConfirmations = []signals.SkipConfirmation{
		{RequestID: "skip-1", StepIDs: []string{"s2"}, Reason: "already done", Confidence: 0.55, Deadline: &dl, DefaultApprove: true},
		{RequestID: "skip-2", StepIDs: []string{"s2", "s3"}, Reason: "not needed", Confidence: 0.3},
	}
	got := Details(*r)

	assert.Contains(t, got, "**Waiting for confirmation**")
	assert.Contains(t, got, "| `skip-1` | s2 | 55% | already done | 2030-05-06 07:08:09 UTC, then approve |")
	assert.Contains(t, got, "| `skip-2` | s2, s3 | 30% | not needed | none: waits for an answer |")
	assert.Contains(t, got, "planmode confirm-skip plan-9 skip-1 --approve\n")
	in := inputs(t, got)
	require.Len(t, in, 1)
	assert.Equal(t, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true}, decode[signals.ConfirmSkipRequest](t, in[0]))
}

func TestDetailsPaused(t *testing.T) {
	r := &Run{WorkflowID: "plan-3", Request: &signals.StartRequest{}, State: &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseExecuting, Goal: "g"}}}
	r.State.Paused, r.State.PauseReason = true, "budget: 1200 tokens of 1000"
	got := Details(*r)

	assert.Contains(t, got, "**Phase:** executing · **Mode:** paused")
	assert.Contains(t, got, "**Waiting for resume**")
	assert.Contains(t, got, "**Reason:** budget: 1200 tokens of 1000")
	assert.Contains(t, got, "temporal workflow update execute --workflow-id plan-3 --name resume --input '{}'\n")
	assert.Contains(t, got, "planmode resume plan-3\n")
	assert.Equal(t, []string{"{}"}, inputs(t, got))
}

func TestDetailsSayWhichPlanHoldsTheWorkspace(t *testing.T) {
	since := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	r := Run{WorkflowID: "plan-B", Namespace: "default", Request: &signals.StartRequest{},
		State:         &signals.Checkpoint{CycleState: signals.CycleState{Phase: plan.PhaseAwaitingWorkspace, Goal: "Take turns"}},
		WorkspaceWait: &signals.WorkspaceWait{Workspace: "a", HeldBy: `plan plan-A (workspace "a")`, Since: since}}

	md := Details(r)
	assert.Contains(t, md, "**Phase:** awaiting-workspace")
	assert.Contains(t, md, "**Waiting for workspace** `a`, held by plan plan-A")
	assert.Contains(t, md, "since 2026-03-04 05:06:00 UTC")
	assert.Equal(t, signals.AwaitingWorkspace, Pending(r).Awaiting)
}

func TestDetailsStepsTable(t *testing.T) {
	r := &Run{WorkflowID: "plan-1", Request: &signals.StartRequest{}, State: &signals.Checkpoint{
		CycleState: signals.CycleState{Phase: plan.PhaseExecuting, Goal: "Ship it"}, ExecutionState: signals.ExecutionState{Plan: &plan.Plan{Title: "Plan A", Steps: []plan.Step{
			{ID: "s1", Number: 1, Title: "First", Action: plan.ActionLLM, Status: plan.StepCompleted,
				Result: &plan.StepResult{Success: true, Output: "wrote main.go\nand more", Attempts: 1, Duration: plan.Duration(1234 * time.Millisecond)}},
			{ID: "s2", Number: 2, Title: "Second", Action: plan.ActionTool, Status: plan.StepFailed,
				Result: &plan.StepResult{Error: "exit status 1 | boom", Attempts: 3, Duration: plan.Duration(2 * time.Minute)}},
			{ID: "s3", Number: 3, Title: "Third", Action: plan.ActionAgent, Status: plan.StepSkipped, Note: "covered by s1"},
			{ID: "s4", Number: 4, Title: "Fourth", Action: plan.ActionAgent, Status: plan.StepRunning},
			{ID: "s5", Number: 5, Title: "Fifth", Action: plan.ActionLLM, Status: plan.StepPending, Estimated: plan.Duration(3 * time.Minute)},
			{ID: "s6", Number: 6, Title: "Sixth", Action: plan.ActionLLM, Status: plan.StepCompleted, Note: "rescued by fallback s7 after: boom",
				Result: &plan.StepResult{Success: true, Output: "done", FallbackUsed: "s7", Attempts: 1}},
		}}}}}
	got := Details(*r)

	for _, want := range []string{
		"#### Plan: Plan A",
		"**40%** · 2 of 5 steps done (2 completed, 1 skipped, 1 failed, 1 running, 1 pending) · about 3m0s left",
		"| 1 | ✓ completed | First | llm | 1 | 1.2s | wrote main.go |\n",
		"| 2 | ✗ failed | Second | tool | 3 | 2m0s | error: exit status 1 \\| boom |\n",
		"| 3 | ↷ skipped | Third | agent | – | – | covered by s1 |\n",
		"| 4 | ▶ running | Fourth | agent | – | – | – |\n",
		"| 5 | ○ pending | Fifth | llm | – | – | – |\n",
		"| 6 | ✓ completed (fallback `s7`) | Sixth | llm | 1 | – | rescued by fallback s7 after: boom |\n",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "earlier step")
	assert.NotContains(t, got, "later step")
}

func TestDetailsFooter(t *testing.T) {
	r := &Run{WorkflowID: "p", Request: &signals.StartRequest{}, State: &signals.Checkpoint{
		CycleState: signals.CycleState{Phase: plan.PhaseCompleted, Goal: "g", Offline: true, LastError: "skip s3: no such step",
			Usage: plan.Usage{PromptTokens: 100, CompletionTokens: 23, TotalTokens: 123, CostUSD: 0.0042, Calls: 4}},
		InputState: signals.InputState{Rejected: []signals.Rejection{{Name: "pause", Reason: "old"}, {Name: "select-option", Reason: "no option has rank 9"}}}}}
	got := Details(*r)

	assert.Contains(t, got, "**Last error:** skip s3: no such step")
	assert.Contains(t, got, "**Last refused input:** `select-option` — no option has rank 9")
	assert.Contains(t, got, "**Usage:** 123 tokens (100 prompt, 23 completion) · $0.0042 · 4 LLM calls · **offline model**")
	assert.NotContains(t, got, "Waiting for", "a finished run waits for nothing")
}

// bigRun is a run at step 31 of a 50-step plan with long texts
// everywhere, many options, questions and skips.
func bigRun() *Run {
	long := strings.Repeat("very long text ", 100)
	steps := make([]plan.Step, 50)
	for i := range steps {
		steps[i] = plan.Step{ID: fmt.Sprintf("s%d", i+1), Number: i + 1, Title: long, Action: plan.ActionAgent, Status: plan.StepPending}
		if i < 30 {
			steps[i].Status = plan.StepCompleted
			steps[i].Result = &plan.StepResult{Success: true, Output: long, Attempts: 1}
		}
	}
	r := selectingRun()
	r.State.Goal, r.State.LastError = long, long
	r.State.Plan = &plan.Plan{Title: long, Steps: steps}
	for i := 0; i < 30; i++ {
		r.State.Options.Options = append(r.State.Options.Options, r.State.Options.Options[0])
		r.Clarify.Questions = append(r.Clarify.Questions, fmt.Sprintf("%d %s", i, long))
		r.State.SkipConfirmations = append(r.State.SkipConfirmations, signals.SkipConfirmation{RequestID: fmt.Sprintf("skip-%d", i), Reason: long})
	}
	r.Clarify.Waiting = true
	r.State.Paused, r.State.PauseReason = true, long
	r.State.Rejected = []signals.Rejection{{Name: "pause", Reason: long}}
	return r
}

func TestDetailsStayBounded(t *testing.T) {
	r := bigRun()
	got := Details(*r)

	assert.Less(t, len(got), 7<<10, "a few KiB at most")
	assert.Contains(t, got, "**Usage:**", "the caps keep the details whole: the last resort cut is not needed")
	assert.Contains(t, got, "| *… 25 earlier step(s)* |")
	assert.Contains(t, got, "| *… 10 later step(s)* |")
	assert.Contains(t, got, "| 26 | ✓ completed |", "a few finished steps stay in view")
	assert.Contains(t, got, "| 31 | ○ pending |", "the first open step is in view")
	assert.NotContains(t, got, "| 25 | ")
	assert.NotContains(t, got, "| 41 | ")
	assert.Contains(t, got, "… and 25 more (see the pending query)", "questions are capped")
	assert.Contains(t, got, "… and 27 more (see the pending query)", "skips are capped")
	assert.NotContains(t, got, strings.Repeat("very long text ", 30), "long texts are cut")

	r.State.Plan = nil
	got = Details(*r)
	assert.Contains(t, got, "… and 22 more (see the options query)", "options are capped")
	assert.Less(t, len(got), 7<<10)
	assert.Contains(t, got, "**Usage:**")
}

func TestStepWindow(t *testing.T) {
	steps := func(n, done int) []plan.Step {
		out := make([]plan.Step, n)
		for i := range out {
			out[i].Status = plan.StepPending
			if i < done {
				out[i].Status = plan.StepCompleted
			}
		}
		return out
	}
	tests := []struct {
		name         string
		n, done      int
		wantFrom, to int
	}{
		{"fits", 15, 10, 0, 15},
		{"start", 50, 0, 0, 15},
		{"few done", 50, 3, 0, 15},
		{"middle", 50, 30, 25, 40},
		{"near the end", 50, 48, 35, 50},
		{"all done", 50, 50, 35, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := stepWindow(steps(tt.n, tt.done))
			assert.Equal(t, tt.wantFrom, from)
			assert.Equal(t, tt.to, to)
		})
	}
}

func TestDetailsText(t *testing.T) {
	t.Run("shellQuote", func(t *testing.T) {
		for in, want := range map[string]string{
			"plan-42":         "plan-42",
			"plan 42":         "'plan 42'",
			"it's":            `'it'\''s'`,
			"":                "''",
			`{"rank":1}`:      `'{"rank":1}'`,
			"a/b:c@d.e_f+g=h": "a/b:c@d.e_f+g=h",
		} {
			assert.Equal(t, want, shellQuote(in), in)
		}
	})
	t.Run("jsonString round-trips", func(t *testing.T) {
		for _, in := range []string{"plain", `quo"te \ back`, "tab\tnew\nline\x01", "é ☃ <b>"} {
			var out string
			require.NoError(t, json.Unmarshal([]byte(jsonString(in)), &out))
			assert.Equal(t, in, out)
		}
	})
	t.Run("inline", func(t *testing.T) {
		assert.Equal(t, `a \| b &lt;i&gt; c`, inline("a |\n b <i>   c", 100))
		assert.Equal(t, "éé…", inline("éééééé", 7), "cut on a rune boundary")
	})
	t.Run("shortDuration", func(t *testing.T) {
		assert.Equal(t, "", shortDuration(0))
		assert.Equal(t, "12ms", shortDuration(12345*time.Microsecond))
		assert.Equal(t, "1.2s", shortDuration(1234*time.Millisecond))
		assert.Equal(t, "2m3s", shortDuration(123456*time.Millisecond))
	})
}

func TestDetailsNameTheParentOfAFork(t *testing.T) {
	r := Run{State: &signals.Checkpoint{CycleState: signals.CycleState{Goal: "g", ForkedFrom: &signals.ForkRef{PlanID: "plan-42", StepID: "s2"}}},
		Request: &signals.StartRequest{}}
	assert.Contains(t, Details(r), "**Forked from:** plan-42 after step s2")
	assert.NotContains(t, Details(Run{State: &signals.Checkpoint{CycleState: signals.CycleState{Goal: "g"}}, Request: &signals.StartRequest{}}), "Forked from")
}

// TestDetailsShowTheLastEventsOfTheLog: the details end with the log's
// last events, newest first, and how to follow it.
func TestDetailsShowTheLastEventsOfTheLog(t *testing.T) {
	r := selectingRun()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for i := int64(1); i <= 12; i++ {
		r.State.RecentEvents = append(r.State.RecentEvents, signals.Event{Seq: i, At: at, Type: signals.EventUsage,
			Message: fmt.Sprintf("event number %d", i)})
	}
	md := Details(*r)
	assert.Contains(t, md, "Recent events")
	assert.Contains(t, md, "event number 12")
	assert.Contains(t, md, "event number 5")
	assert.NotContains(t, md, "event number 4", "the last eight only")
	assert.Less(t, strings.Index(md, "event number 12"), strings.Index(md, "event number 11"), "newest first")
	assert.Contains(t, md, "planmode watch plan-42 --follow")

	assert.NotContains(t, Details(*selectingRun()), "Recent events", "a log without events shows none")
}
