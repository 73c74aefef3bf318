package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func fixtureOptions() []plan.Option {
	return []plan.Option{
		{ID: "opt-1", Title: "Middleware with JWT", Description: "Add a middleware.", Score: 82.5, Rank: 1, Recommended: true,
			Pros: []string{"small"}, Cons: []string{"no refresh"},
			Plan: plan.Plan{Steps: make([]plan.Step, 3), Estimates: plan.Estimates{
				Duration: plan.Duration(45 * time.Minute), Complexity: plan.ComplexityMedium, Confidence: 0.8}}},
		{ID: "opt-2", Title: strings.Repeat("Very long title ", 6), Score: 61, Rank: 2,
			Plan: plan.Plan{Steps: make([]plan.Step, 7), Estimates: plan.Estimates{
				Duration: plan.Duration(2 * time.Hour), Complexity: plan.ComplexityHigh, Confidence: 0.55},
				Risks: []plan.Risk{{Description: "breaks login", Impact: plan.ImpactHigh, Likelihood: plan.LikelihoodHigh}}}},
	}
}

// lines splits out into lines, each with its fields.
func lines(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		rows = append(rows, strings.Fields(l))
	}
	return rows
}

func TestRenderOptionsTable(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderOptionsTable(&buf, fixtureOptions()))
	rows := lines(buf.String())
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"#", "ID", "TITLE", "SCORE", "STEPS", "DURATION", "COMPLEXITY", "CONFIDENCE"}, rows[0])
	assert.Equal(t, []string{"1", "opt-1", "Middleware", "with", "JWT", "*", "82.5", "3", "45m0s", "medium", "80%"}, rows[1])
	assert.Contains(t, buf.String(), "…", "long titles are clipped")
	assert.Equal(t, []string{"61.0", "7", "2h0m0s", "high", "55%"}, rows[2][len(rows[2])-5:])
}

func TestRenderComparison(t *testing.T) {
	cmp := plan.Comparison{
		Criteria: []string{"Complexity", "Duration", "Risk Level"},
		Rows: []plan.ComparisonRow{
			{OptionID: "opt-1", Title: "Middleware", Cells: []plan.ComparisonCell{
				{Criterion: "Complexity", Value: "medium"}, {Criterion: "Duration", Value: "45m0s"}, {Criterion: "Risk Level", Value: "Low"}}},
			{OptionID: "opt-2", Title: "Gateway", Cells: []plan.ComparisonCell{
				{Criterion: "Risk Level", Value: "High"}, {Criterion: "Complexity", Value: "high"}}},
		},
		Summary: "Middleware is recommended: simplest.",
	}
	var buf bytes.Buffer
	require.NoError(t, renderComparison(&buf, cmp))
	rows := lines(buf.String())
	assert.Equal(t, []string{"OPTION", "COMPLEXITY", "DURATION", "RISK", "LEVEL"}, rows[0])
	assert.Equal(t, []string{"Middleware", "medium", "45m0s", "Low"}, rows[1])
	assert.Equal(t, []string{"Gateway", "high", "-", "High"}, rows[2], "cells follow the criteria order; a missing one is a dash")
	assert.Equal(t, "Middleware is recommended: simplest.", strings.Join(rows[len(rows)-1], " "))

	buf.Reset()
	require.NoError(t, renderComparison(&buf, plan.Comparison{}))
	assert.Empty(t, buf.String())
}

func TestRenderComparisonOfRealOptions(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderComparison(&buf, plan.Compare(fixtureOptions())))
	rows := lines(buf.String())
	assert.Equal(t, "OPTION", rows[0][0])
	assert.Contains(t, buf.String(), "80%")
	assert.Contains(t, buf.String(), "High", "the risky option's risk level")
}

func TestRenderOptionsLikeThePresenter(t *testing.T) {
	var buf bytes.Buffer
	renderOptions(&buf, fixtureOptions())
	out := buf.String()
	for _, want := range []string{
		"=== Implementation Options ===",
		"Option 1: Middleware with JWT [RECOMMENDED]",
		"Score: 82.5/100",
		"Description: Add a middleware.",
		"  + small",
		"  - no refresh",
		"Estimated Duration: 45m0s",
		"Complexity: medium",
		"Confidence: 80%",
		"Option 2: ",
		"Risk Level: High",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "[RECOMMENDED]"))
}

func TestRenderSteps(t *testing.T) {
	steps := []plan.Step{
		{ID: "s1", Number: 1, Title: "Read the code", Action: plan.ActionTool, Status: plan.StepCompleted,
			Result: &plan.StepResult{Success: true, Output: "found 3 files\nmore"}},
		{ID: "s2", Number: 2, Title: "Write tests", Action: plan.ActionAgent, Status: plan.StepFailed, DependsOn: []string{"s1"},
			Result: &plan.StepResult{Error: "tests fail"}},
		{ID: "s3", Number: 3, Title: "Docs", Action: plan.ActionLLM, Status: plan.StepSkipped, DependsOn: []string{"s1", "s2"},
			Note: "not needed"},
		{ID: "s4", Number: 4, Title: "Ship", Action: plan.ActionTool, Status: plan.StepPending},
		{ID: "s5", Number: 5, Title: "Lint", Action: plan.ActionTool, Status: plan.StepCompleted, Note: "rescued by fallback s6 after: exit 1",
			Result: &plan.StepResult{Success: true, Output: "clean", FallbackUsed: "s6"}},
	}
	var buf bytes.Buffer
	require.NoError(t, renderSteps(&buf, steps))
	rows := lines(buf.String())
	require.Len(t, rows, 6)
	assert.Equal(t, []string{"#", "ID", "STATUS", "ACTION", "TITLE", "DEPENDS", "ON", "NOTE"}, rows[0])
	assert.Equal(t, []string{"1", "s1", "✓", "completed", "tool", "Read", "the", "code", "-", "found", "3", "files"}, rows[1])
	assert.Equal(t, []string{"2", "s2", "✗", "failed", "agent", "Write", "tests", "s1", "tests", "fail"}, rows[2])
	assert.Equal(t, []string{"3", "s3", "↷", "skipped", "llm", "Docs", "s1,s2", "not", "needed"}, rows[3])
	assert.Equal(t, []string{"4", "s4", "·", "pending", "tool", "Ship", "-", "-"}, rows[4])
	assert.Equal(t, []string{"5", "s5", "✓", "completed", "(fallback", "s6)", "tool", "Lint", "-",
		"rescued", "by", "fallback", "s6", "after:", "exit", "1"}, rows[5])
}

func TestRenderPendingSaysWhatToRun(t *testing.T) {
	cases := []struct {
		name    string
		pending signals.Pending
		want    []string
	}{
		{"selection", signals.Pending{Awaiting: signals.AwaitingSelection,
			Selection: &signals.SelectionRequest{OptionIDs: []string{"opt-1", "opt-2"}}},
			[]string{"selection among opt-1, opt-2", "Next: planmode select plan-9"}},
		{"clarification", signals.Pending{Awaiting: signals.AwaitingClarification,
			Clarification: &signals.ClarificationRequest{Questions: []string{"Which database?"}}},
			[]string{"1. Which database?", "Next: planmode answer plan-9 --answer"}},
		{"confirmation", signals.Pending{Awaiting: signals.AwaitingConfirmation,
			SkipConfirmations: []signals.SkipConfirmation{{RequestID: "skip-1", StepIDs: []string{"s3"}, Confidence: 0.6, Reason: "done"}}},
			[]string{"Skip request skip-1: skip s3 (confidence 60%)", "Next: planmode confirm-skip plan-9 skip-1 --approve"}},
		{"paused", signals.Pending{Awaiting: signals.AwaitingResume, Paused: true}, []string{"Paused.", "Next: planmode resume plan-9"}},
		{"rejections", signals.Pending{Rejected: []signals.Rejection{{Name: "select-option", Reason: "unknown option"}}},
			[]string{"Rejected select-option", "unknown option"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			renderPending(&buf, "plan-9", tc.pending)
			for _, w := range tc.want {
				assert.Contains(t, buf.String(), w)
			}
		})
	}
}

func TestPickAnOption(t *testing.T) {
	opts := fixtureOptions()
	cases := []struct {
		answer, want, wantErr string
	}{
		{answer: "1\n", want: "opt-1"},
		{answer: " 2 ", want: "opt-2"},
		{answer: "opt-2", want: "opt-2"},
		{answer: "3", wantErr: "invalid choice 3: want 1..2"},
		{answer: "x", wantErr: `invalid choice "x"`},
	}
	for _, tc := range cases {
		got, err := pick(opts, tc.answer)
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr)
			assert.Equal(t, exitRejected, exitCode(err))
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

func TestChoosePresentsAndReads(t *testing.T) {
	d, out, _ := newTestDeps(t, "2\n")
	id, err := choose(d.in, d.out, fixtureOptions())
	require.NoError(t, err)
	assert.Equal(t, "opt-2", id)
	assert.Contains(t, out.String(), "Select an option (1-2): ")
}

func TestRenderResult(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, renderResult(&buf, signals.Result{Status: signals.StatusCompleted, Summary: "All done.",
		SelectedOptionID: "opt-1", Tokens: 1200, CostUSD: 0.0123, Offline: true,
		Metrics: plan.Metrics{StepsCompleted: 3, FilesCreated: 1, CommandsRun: 2, MaxConcurrent: 2},
		Plan:    &plan.Plan{Steps: []plan.Step{{ID: "s1", Number: 1, Title: "Do", Status: plan.StepCompleted}}}}))
	out := buf.String()
	for _, want := range []string{"Status: completed", "Option: opt-1", "Steps: 3 completed", "up to 2 at once", "1 created", "2 commands run",
		"Tokens: 1200  Cost: $0.0123 (offline model)", "All done.", "s1"} {
		assert.Contains(t, out, want)
	}
}

func TestRenderProgressSaysStepsAtOnce(t *testing.T) {
	var buf bytes.Buffer
	renderProgress(&buf, signals.Progress{Phase: plan.PhaseExecuting, Mode: plan.ModeAct, MaxConcurrent: 3})
	assert.Contains(t, buf.String(), "  Up to 3 steps at once  Tokens:")

	buf.Reset()
	renderProgress(&buf, signals.Progress{Phase: plan.PhaseExecuting, Mode: plan.ModeAct, MaxConcurrent: 1})
	assert.NotContains(t, buf.String(), "at once", "one step at a time is not news")
}
