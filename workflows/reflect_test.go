package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// afterFirst makes the reflection decide refl after step s1 and continue
// after every other step. The options' last step gets a skip condition
// that reads s1 and never holds, so that the plan branches on s1 and the
// balanced and efficient modes keep its reflection (plan.NeedsReflection).
func afterFirst(h *harness, refl plan.Reflection) {
	options := h.f.options
	h.f.options = func(in activities.OptionsInput) (activities.OptionsOutput, error) {
		out, err := options(in)
		for i := range out.Options {
			steps := out.Options[i].Plan.Steps
			if n := len(steps); n > 1 && steps[n-1].SkipCondition == "" {
				steps[n-1].SkipCondition = "s1.failed"
			}
		}
		return out, err
	}
	h.f.reflect = func(in activities.ReflectInput) (plan.Reflection, error) {
		if in.Context.Step.ID == "s1" {
			return refl, nil
		}
		return plan.Reflection{Decision: plan.DecisionContinue}, nil
	}
}

func newStep(id string, deps ...string) *plan.Step {
	s := llmStep(id, deps...)
	return &s
}

func TestReflectionDecisions(t *testing.T) {
	cases := []struct {
		name      string
		refl      plan.Reflection
		wantSteps []string
		check     func(t *testing.T, p *plan.Plan)
	}{
		{"continue", plan.Reflection{Decision: plan.DecisionContinue}, []string{"s1", "s2", "s3"}, nil},
		{"insert", plan.Reflection{Decision: plan.DecisionInsert, Reason: "needs a migration",
			Edits: []plan.Edit{{Op: plan.OpInsertAfter, StepID: "s1", Step: newStep("n1", "s1")}}},
			[]string{"s1", "n1", "s2", "s3"}, func(t *testing.T, p *plan.Plan) {
				assert.Equal(t, 2, p.StepByID("n1").Number)
			}},
		{"append", plan.Reflection{Decision: plan.DecisionAppend,
			Edits: []plan.Edit{{Op: plan.OpAppend, Step: newStep("n1", "s3")}}},
			[]string{"s1", "s2", "s3", "n1"}, nil},
		{"remove", plan.Reflection{Decision: plan.DecisionRemove,
			Edits: []plan.Edit{{Op: plan.OpRemove, StepID: "s2"}}},
			[]string{"s1", "s3"}, func(t *testing.T, p *plan.Plan) {
				assert.Nil(t, p.StepByID("s2"))
			}},
		{"update", plan.Reflection{Decision: plan.DecisionUpdate,
			Edits: []plan.Edit{{Op: plan.OpUpdate, StepID: "s3", Step: &plan.Step{Title: "Renamed"}}}},
			[]string{"s1", "s2", "s3"}, func(t *testing.T, p *plan.Plan) {
				assert.Equal(t, "Renamed", p.StepByID("s3").Title)
			}},
		{"replan", plan.Reflection{Decision: plan.DecisionReplan, Reason: "simpler",
			Steps: []plan.Step{llmStep("r1"), llmStep("r2", "r1")}},
			[]string{"s1", "r1", "r2"}, func(t *testing.T, p *plan.Plan) {
				assert.Nil(t, p.StepByID("s2"))
			}},
		{"complete", plan.Reflection{Decision: plan.DecisionComplete, Response: "goal met early"},
			[]string{"s1"}, func(t *testing.T, p *plan.Plan) {
				assert.Equal(t, plan.StepSkipped, p.StepByID("s2").Status)
				assert.Equal(t, plan.StepSkipped, p.StepByID("s3").Status)
				assert.Contains(t, p.StepByID("s3").Note, "goal met early")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			afterFirst(h, tc.refl)
			res := h.run(autoReq())

			require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
			assert.Equal(t, tc.wantSteps, h.f.stepIDs())
			if tc.refl.Decision != plan.DecisionContinue {
				require.NotEmpty(t, res.Plan.UpdateHistory)
				last := res.Plan.UpdateHistory[len(res.Plan.UpdateHistory)-1]
				assert.Equal(t, plan.ActorReflection, last.Actor)
				assert.Greater(t, res.Plan.Version, 1)
			}
			assert.Empty(t, query(h, signals.PendingQuery).Rejected)
			if tc.check != nil {
				tc.check(t, res.Plan)
			}
		})
	}
}

func TestGoalDeclaredAchievedAfterAFailedStepCompletesTheRun(t *testing.T) {
	for _, decision := range []plan.Decision{plan.DecisionComplete, plan.DecisionContinue} {
		t.Run(string(decision), func(t *testing.T) {
			h := newHarness(t)
			h.f.llmStep = func(in activities.StepInput) (plan.StepResult, error) {
				if in.Context.Step.ID == "s1" {
					return plan.StepResult{Error: "the linter is not installed"}, nil
				}
				return plan.StepResult{Success: true, Output: "ok"}, nil
			}
			afterFirst(h, plan.Reflection{Decision: decision, Response: "the goal does not need the linter"})
			res := h.run(autoReq())

			assert.Equal(t, plan.StepFailed, res.Plan.StepByID("s1").Status)
			if decision == plan.DecisionComplete {
				assert.Equal(t, signals.StatusCompleted, res.Status, "the reflection's verdict outweighs the failed step")
				assert.Empty(t, res.Error)
				return
			}
			assert.Equal(t, signals.StatusFailed, res.Status, "a failed step the reflection did not excuse fails the run")
			assert.Contains(t, res.Error, "the linter is not installed")
		})
	}
}

func TestReflectionGetsStepContextAndRemaining(t *testing.T) {
	h := newHarness(t)
	req := autoReq()
	req.Execution.Mode = signals.ExecComplete
	h.run(req)

	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	require.Len(t, h.f.reflectIn, 3)
	first := h.f.reflectIn[0]
	assert.Equal(t, "s1", first.Context.Step.ID)
	assert.Equal(t, "complete", first.Mode)
	assert.Equal(t, []string{"s2", "s3"}, []string{first.Remaining[0].ID, first.Remaining[1].ID})
	assert.Empty(t, h.f.reflectIn[2].Remaining)
}

func TestReflectionGetsThePlansWorkspace(t *testing.T) {
	for _, ws := range []string{"/srv/repo", ""} {
		t.Run("workspace "+ws, func(t *testing.T) {
			h := newHarness(t)
			req := autoReq()
			req.Workspace = ws
			res := h.run(req)

			require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
			h.f.mu.Lock()
			defer h.f.mu.Unlock()
			require.NotEmpty(t, h.f.reflectIn)
			want := ws
			if ws == "" {
				want = plan.DefaultWorkspace("default-test-workflow-id")
			}
			for _, in := range h.f.reflectIn {
				assert.Equal(t, want, in.Workspace, "reflection may inspect only the plan's own workspace")
			}
		})
	}
}

func TestInvalidReflectionEditIsRecordedAndExecutionGoesOn(t *testing.T) {
	h := newHarness(t)
	afterFirst(h, plan.Reflection{Decision: plan.DecisionInsert,
		Edits: []plan.Edit{{Op: plan.OpInsertAfter, StepID: "s1", Step: newStep("n1", "ghost")}}})
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Equal(t, 1, res.Plan.Version, "the plan is untouched")
	pending := query(h, signals.PendingQuery)
	assert.True(t, hasRejection(pending, "reflection:insert", "ghost"), "%+v", pending.Rejected)
}

func TestReflectionErrorDoesNotStopExecution(t *testing.T) {
	h := newHarness(t)
	h.f.reflect = func(activities.ReflectInput) (plan.Reflection, error) {
		return plan.Reflection{}, assert.AnError
	}
	res := h.run(autoReq())

	assert.Equal(t, signals.StatusCompleted, res.Status)
	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Contains(t, query(h, signals.ProgressQuery).LastError, "reflect after step s3")
}

// skipS2 proposes skipping s2 after s1 with a confidence.
func skipS2(h *harness, confidence float64) {
	afterFirst(h, plan.Reflection{Decision: plan.DecisionSkip, StepIDs: []string{"s2"}, Reason: "already done by s1", Confidence: confidence})
}

func TestSkipAppliedAtOnceWhenConfident(t *testing.T) {
	for _, mode := range []signals.ExecutionMode{signals.ExecBalanced, signals.ExecEfficient} {
		t.Run(string(mode), func(t *testing.T) {
			h := newHarness(t)
			skipS2(h, 0.9)
			req := autoReq()
			req.Execution.Mode = mode
			res := h.run(req)

			assert.Equal(t, []string{"s1", "s3"}, h.f.stepIDs())
			s2 := res.Plan.StepByID("s2")
			assert.Equal(t, plan.StepSkipped, s2.Status)
			assert.Equal(t, "already done by s1", s2.Note)
			last := res.Plan.UpdateHistory[len(res.Plan.UpdateHistory)-1]
			assert.Equal(t, plan.UpdateSkip, last.Type)
			assert.Equal(t, plan.ActorReflection, last.Actor)
			assert.Equal(t, 1, res.Metrics.StepsSkipped)
		})
	}
}

func TestSkipDroppedInEfficientModeBelowThreshold(t *testing.T) {
	h := newHarness(t)
	skipS2(h, 0.5)
	req := autoReq()
	req.Execution.Mode = signals.ExecEfficient
	res := h.run(req)

	assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
	assert.Equal(t, plan.StepCompleted, res.Plan.StepByID("s2").Status)
	assert.True(t, hasRejection(query(h, signals.PendingQuery), "reflection:skip", "skip dropped"))
}

func TestSkipConfirmation(t *testing.T) {
	cases := []struct {
		name       string
		mode       signals.ExecutionMode
		confidence float64
		timeout    time.Duration
		onTimeout  signals.TimeoutOutcome
		answer     func(h *harness) *outcome[signals.ConfirmSkipResponse]
		wantSkip   bool
		wantActor  plan.Actor
	}{
		{name: "balanced approved by update", mode: signals.ExecBalanced, confidence: 0.5, wantSkip: true, wantActor: plan.ActorUser,
			answer: func(h *harness) *outcome[signals.ConfirmSkipResponse] {
				return update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true, Note: "agreed"})
			}},
		{name: "balanced denied by signal", mode: signals.ExecBalanced, confidence: 0.5,
			answer: func(h *harness) *outcome[signals.ConfirmSkipResponse] {
				signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: false})
				return nil
			}},
		{name: "complete mode asks even when sure", mode: signals.ExecComplete, confidence: 1, wantSkip: true, wantActor: plan.ActorUser,
			answer: func(h *harness) *outcome[signals.ConfirmSkipResponse] {
				return update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true})
			}},
		{name: "efficient asks when a confirm timeout is set", mode: signals.ExecEfficient, confidence: 0.5,
			timeout: time.Hour, wantSkip: true, wantActor: plan.ActorUser,
			answer: func(h *harness) *outcome[signals.ConfirmSkipResponse] {
				return update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true})
			}},
		{name: "deadline approves by default", mode: signals.ExecBalanced, confidence: 0.5,
			timeout: 10 * time.Minute, onTimeout: signals.OnTimeoutApprove, wantSkip: true, wantActor: plan.ActorSystem},
		{name: "deadline denies by default", mode: signals.ExecBalanced, confidence: 0.5, timeout: 10 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			skipS2(h, tc.confidence)
			req := autoReq()
			req.Execution.Mode = tc.mode
			req.Execution.ConfirmTimeout = plan.Duration(tc.timeout)
			req.Execution.OnConfirmTimeout = tc.onTimeout
			var pending signals.Pending
			var answer *outcome[signals.ConfirmSkipResponse]
			h.at(stepTime+30*time.Second, func() {
				pending = query(h, signals.PendingQuery)
				if tc.answer != nil {
					answer = tc.answer(h)
				}
			})
			res := h.run(req)

			assert.Equal(t, signals.AwaitingConfirmation, pending.Awaiting)
			require.Len(t, pending.SkipConfirmations, 1)
			c := pending.SkipConfirmations[0]
			assert.Equal(t, "skip-1", c.RequestID)
			assert.Equal(t, []string{"s2"}, c.StepIDs)
			assert.Equal(t, tc.confidence, c.Confidence)
			assert.Equal(t, tc.onTimeout == signals.OnTimeoutApprove, c.DefaultApprove)
			assert.Equal(t, tc.timeout > 0, c.Deadline != nil)
			if answer != nil {
				got := requireAccepted(t, answer)
				assert.Equal(t, tc.wantSkip, got.Approved)
				assert.Equal(t, []string{"s2"}, got.StepIDs)
			}

			s2 := res.Plan.StepByID("s2")
			if !tc.wantSkip {
				assert.Equal(t, plan.StepCompleted, s2.Status)
				assert.Equal(t, []string{"s1", "s2", "s3"}, h.f.stepIDs())
				return
			}
			assert.Equal(t, plan.StepSkipped, s2.Status)
			assert.Equal(t, []string{"s1", "s3"}, h.f.stepIDs())
			last := res.Plan.UpdateHistory[len(res.Plan.UpdateHistory)-1]
			assert.Equal(t, tc.wantActor, last.Actor)
			assert.Empty(t, query(h, signals.PendingQuery).SkipConfirmations)
		})
	}
}

func TestConfirmSkipRejectsUnknownRequest(t *testing.T) {
	h := newHarness(t)
	skipS2(h, 0.5)
	var none, unknown *outcome[signals.ConfirmSkipResponse]
	h.at(30*time.Second, func() {
		none = update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true})
	})
	h.at(stepTime+30*time.Second, func() {
		unknown = update(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-9", Approve: true})
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-7"})
		signal(h, signals.ConfirmSkip, signals.ConfirmSkipRequest{RequestID: "skip-1", Approve: true})
	})
	res := h.run(autoReq())

	requireRejected(t, none, "no skip confirmation is pending")
	requireRejected(t, unknown, `unknown skip request "skip-9" (pending: skip-1)`)
	assert.True(t, hasRejection(query(h, signals.PendingQuery), "confirm-skip", `"skip-7"`))
	assert.Equal(t, plan.StepSkipped, res.Plan.StepByID("s2").Status)
}
