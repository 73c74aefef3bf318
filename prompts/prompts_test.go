package prompts

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

func TestOptionsExampleIsAnOptionsReply(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(optionsExample))
	dec.DisallowUnknownFields()
	var r reply.Options
	require.NoError(t, dec.Decode(&r))
	require.NoError(t, r.Check(0))
	assert.Len(t, r.Options[0].Steps, 4)
	o := r.Options[0].PlanOption("o", "p", plan.Task{}, time.Time{})
	res := plan.Validate(o.Plan, plan.Limits{})
	require.True(t, res.Valid, "%v", res.Messages())
	assert.Equal(t, []string{"s1"}, o.Plan.Ready(), "the fallback waits for its step to fail")
	s2 := o.Plan.StepByID("s2")
	assert.Equal(t, 10*time.Second, s2.RetryDelay.D())
	assert.Equal(t, "s4", s2.FallbackStepID)
	assert.Equal(t, "s2.filesChanged == 0", o.Plan.StepByID("s3").SkipCondition)
}

func TestPlanPromptTeachesDependenciesAndResilience(t *testing.T) {
	msgs, err := Plan(Custom{}, PlanData{Goal: "g", Count: 1})
	require.NoError(t, err)
	system := msgs[0].Content
	for _, want := range []string{`"dependsOn"`, "[] when it needs none", `"maxRetries"`,
		fmt.Sprintf("at most %d", plan.MaxStepRetries), `"retryDelay"`, plan.MaxRetryDelay.String(),
		`"fallbackStepId"`, `"skipCondition"`, "filesChanged"} {
		assert.Contains(t, system, want)
	}
}

func TestSystemMessageOrder(t *testing.T) {
	c := Custom{System: "You work for ACME.", Phases: map[string]string{"executing": "Be brief.", "planning": "Plan big."}}
	msgs, err := Execute(c, StepData{Prompt: "Explain the code"}, "Step's own.")
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	system := msgs[0].Content
	assert.True(t, strings.HasPrefix(system, PhaseLine+llm.PhaseExecute+"\nDo exactly this one step of a plan"), system)
	assert.True(t, strings.HasSuffix(system, "\n\nYou work for ACME.\n\nBe brief.\n\nStep's own."), system)
	assert.NotContains(t, system, "Plan big.", "another phase's prompt stays out")
	assert.Equal(t, llm.RoleUser, msgs[1].Role)
	assert.Contains(t, msgs[1].Content, "Task:\nExplain the code")
}

func TestAgentCutsToolResults(t *testing.T) {
	transcript := []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file"}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: strings.Repeat("y", 20_000)}}
	msgs, err := Agent(Custom{}, StepData{Prompt: "p", Iteration: 1, MaxIterations: 2, Remaining: 1}, transcript)
	require.NoError(t, err)
	require.Len(t, msgs, 4)
	assert.Equal(t, transcript[0], msgs[2])
	assert.LessOrEqual(t, len(msgs[3].Content), maxToolMessageLen)
	assert.Len(t, transcript[1].Content, 20_000, "the caller's transcript is left alone")
}

func TestReflectDataBoundsAndDefaults(t *testing.T) {
	var remaining []plan.StepDigest
	for i := 1; i <= 30; i++ {
		remaining = append(remaining, plan.StepDigest{ID: fmt.Sprintf("s%d", i), Title: "later"})
	}
	done := &plan.StepResult{Success: true, Output: "ok"}
	d := NewReflectData("g", plan.StepContext{Step: plan.Step{ID: "s0", Result: done}}, nil, remaining, 2, "")
	assert.Same(t, done, d.Result, "the step's own result stands in")
	assert.Equal(t, "balanced", d.Mode)
	assert.Equal(t, "g", d.Context.Goal)
	assert.Len(t, d.Remaining, plan.RemainingListed)
	assert.Equal(t, 22, d.MoreRemaining, "those cut here and those the caller left out")
}

func TestSummarizeDataBoundsSteps(t *testing.T) {
	p := plan.Plan{Title: "Big"}
	for i := 1; i <= 100; i++ {
		status := plan.StepCompleted
		if i%10 == 0 {
			status = plan.StepFailed
		}
		p.Steps = append(p.Steps, plan.Step{ID: fmt.Sprintf("s%d", i), Title: "t", Status: status,
			Result: &plan.StepResult{Output: "line one\nline two " + strings.Repeat("z", 500)}})
	}
	d := NewSummarizeData("g", "failed", true, p.Digest())
	assert.Equal(t, "Big", d.Plan.Title, "templates written for the whole plan still find its title")
	assert.Len(t, d.Steps, plan.DigestSteps)
	assert.Equal(t, 40, d.More)
	assert.Equal(t, summaryTotals{Total: 100, Completed: 90, Failed: 10}, d.Totals)
	assert.True(t, strings.HasPrefix(d.Steps[0].Digest, "line one line two zzz"), "one line")
	assert.LessOrEqual(t, len(d.Steps[0].Digest), plan.DigestChars)
	assert.Equal(t, "Goal: g\nStatus: failed. 90 of 100 steps completed, 10 failed, 0 skipped, 0 cancelled.", d.Plain())
}

func TestWithInspectNote(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "u"}}
	got := WithInspectNote(msgs, []string{"list_files", "read_file"}, 3)
	assert.Equal(t, "sys", msgs[0].Content, "a copy")
	assert.Equal(t, "sys\n\nYou may first inspect the workspace with the read-only tools offered "+
		"(list_files, read_file), at most 3 rounds of calls; then reply with the JSON object.", got[0].Content)
	lead := WithInspectNote(msgs[1:], []string{"list_files"}, 1)
	require.Len(t, lead, 2)
	assert.Equal(t, llm.RoleSystem, lead[0].Role)
}

func TestStepPromptCarriesWhatTheStepNeeds(t *testing.T) {
	d := sampleStep()
	d.Context.Step.Description = "Edit cart.go only"
	msgs, err := Execute(Custom{}, d, "")
	require.NoError(t, err)
	user := msgs[1].Content
	for _, want := range []string{
		"Goal: Add a discount to the cart\n",
		"Step s2 (2 of 4): Implement the discount\n",
		"Description: Edit cart.go only\n",
		"Before:\n- s1 [completed] Survey: cart.go\n", // the outcome of the step it depends on
		"Next:\n- s3 Run the tests\n",
		"Task:\nAdd the discount",
	} {
		assert.Contains(t, user, want)
	}
	assert.Equal(t, 1, strings.Count(user, "Implement the discount"), "the step is named once")
}

// TestStepAtWorkSeesWhatItBuildsOn: an llm step and an agent turn are
// shown the results of the steps they depend on and no others, the next
// step and not those after it, and no account of the older steps; the
// reflection on the same context still sees all of it.
func TestStepAtWorkSeesWhatItBuildsOn(t *testing.T) {
	sc := sampleStepContext()
	sc.Step.ID, sc.Step.Title, sc.Position, sc.Total = "s7", "Rule 7", 7, 50
	sc.Step.DependsOn = []string{"s6"}
	sc.Before = []plan.StepDigest{{ID: "s5", Title: "Rule 5", Status: plan.StepCompleted, Digest: "rule 5 checks names"},
		{ID: "s6", Title: "Rule 6", Status: plan.StepCompleted, Digest: "rule 6 checks e-mails"}}
	sc.After = []plan.StepDigest{{ID: "s8", Title: "Rule 8"}, {ID: "s9", Title: "Rule 9"}}
	sc.Summary, sc.EarlierCount, sc.LaterCount = "4 earlier steps: 3 completed, 1 failed. Failed: s2.", 4, 41
	d := StepData{Context: sc, Prompt: "Check rule 7", Workspace: "shop", Iteration: 1, MaxIterations: 4, Remaining: 3}

	llmStep, err := Execute(Custom{}, d, "")
	require.NoError(t, err)
	agent, err := Agent(Custom{}, d, nil)
	require.NoError(t, err)
	for name, user := range map[string]string{"llm step": llmStep[1].Content, "agent turn": agent[1].Content} {
		assert.Contains(t, user, "Step s7 (7 of 50): Rule 7\n", name)
		assert.Contains(t, user, "- s5 [completed] Rule 5\n", "%s: a neighbour it does not depend on, by title", name)
		assert.NotContains(t, user, "rule 5 checks names", "%s: whose result it does not build on", name)
		assert.Contains(t, user, "- s6 [completed] Rule 6: rule 6 checks e-mails\n", "%s: the step it depends on", name)
		assert.Contains(t, user, "Next:\n- s8 Rule 8", name)
		assert.NotContains(t, user, "Rule 9", "%s: the position says how many follow", name)
		assert.NotContains(t, user, "more steps", name)
		assert.NotContains(t, user, "earlier steps", "%s: how older steps went is the reflection's", name)
		assert.NotContains(t, user, "shop", "%s: the workspace's name is no path a tool takes", name)
	}
	assert.Equal(t, "rule 5 checks names", d.Context.Before[0].Digest, "the caller's context is left alone")
	assert.Len(t, d.Context.After, 2)

	reflect, err := Reflect(Custom{}, NewReflectData("g", sc, nil, nil, 0, ""))
	require.NoError(t, err)
	assert.Contains(t, reflect[1].Content, "rule 5 checks names", "a reflection weighs every neighbour")
	assert.Contains(t, reflect[1].Content, "Failed: s2.")
}

func TestReflectPromptShowsEachStepOnce(t *testing.T) {
	d := sampleReflect()
	d.Context.After = append(d.Context.After, plan.StepDigest{ID: "s4", Title: "Already done", Status: plan.StepCompleted})
	d = NewReflectData("g", d.Context, d.Result, d.Remaining, d.MoreRemaining, d.Mode)
	msgs, err := Reflect(Custom{}, d)
	require.NoError(t, err)
	user := msgs[1].Content
	for _, want := range []string{
		"Goal: Add a discount to the cart\n",
		"Before:\n- s1 [completed] Survey: cart.go\n",
		"Next:\n- s4 Already done\n", // a neighbour the remaining list does not show
		"Result of step s2: FAILED\n",
		"Error: tests failed\n",
		"Files changed: cart.go (modified)\n",
		"Output:\nedited cart.go\n",
		"Steps not done yet (first 1 of 2):\n- s3 Run the tests",
	} {
		assert.Contains(t, user, want)
	}
	assert.Equal(t, 1, strings.Count(user, "s3 Run the tests"), "the next step is listed once")
	assert.NotContains(t, user, "more steps)", "the remaining list says how many are left")
}

func TestFileChangesAreBounded(t *testing.T) {
	var fc []plan.FileChange
	for i := range 13 {
		fc = append(fc, plan.FileChange{Path: fmt.Sprintf("f%d.go", i), Op: plan.FileCreated})
	}
	got := changes(fc)
	assert.True(t, strings.HasPrefix(got, "f0.go (created), f1.go (created)"), got)
	assert.True(t, strings.HasSuffix(got, "f9.go (created), 3 more"), got)
}
