package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// agentPlanSteps is the length of the scripted plan the agentplan section
// runs: long enough that what every step pays dominates.
const agentPlanSteps = 50

// agentPlanLLMEvery makes every such step an llm step; the others are
// agent steps.
const agentPlanLLMEvery = 5

// agentPlanPhases are the phases the agentplan section reports, in the
// order of a run; execute counts llm steps and agent turns together.
var agentPlanPhases = []string{activities.PhaseClarify, activities.PhasePlan, activities.PhaseExecute,
	activities.PhaseReflect, activities.PhaseSummarize}

// agentPlanRequests names a file the agentplan section writes the
// model's requests to, one JSON object a line, so where the tokens go can
// be read from what the model was sent rather than guessed.
var agentPlanRequests = flag.String("agentplan-requests", "",
	"write the agentplan section's model requests to this file, one JSON object a line")

// agentPlanSource is the file every agent step reads: a handler of a few
// dozen rules, about 2 KiB.
func agentPlanSource() string {
	var sb strings.Builder
	sb.WriteString("package signup\n\n")
	for i := 1; i <= agentPlanSteps; i++ {
		fmt.Fprintf(&sb, "// rule%02d rejects field %d when it is empty.\n", i, i)
	}
	return sb.String()
}

// agentPlan returns the scripted plan: a chain of n steps, agent
// steps that read signup.go with read_file and write a finding with
// write_file, and every agentPlanLLMEvery-th an llm step that sums up.
func agentPlan(n int) []plan.Step {
	steps := make([]plan.Step, n)
	for i := range steps {
		num := i + 1
		s := plan.Step{ID: fmt.Sprintf("s%d", num), Title: fmt.Sprintf("Rule %d of the signup handler", num),
			Kind: plan.KindCodeAnalysis}
		if num%agentPlanLLMEvery == 0 {
			s.Action = plan.ActionLLM
			s.Config.LLM = &plan.LLMConfig{Prompt: fmt.Sprintf("Sum up the findings on rules %d to %d of the signup "+
				"handler in three sentences: which rules reject bad input and which need a test.", num-agentPlanLLMEvery+1, num)}
		} else {
			s.Action = plan.ActionAgent
			s.Config.Agent = &plan.AgentConfig{Prompt: fmt.Sprintf("Write the finding on rule %d of signup.go: read "+
				"signup.go, check whether rule%02d rejects bad input, and note it.", num, num),
				Tools: []string{plan.ToolReadFile, plan.ToolWriteFile}}
		}
		if i > 0 {
			s.DependsOn = []string{steps[i-1].ID}
		}
		steps[i] = s
	}
	return steps
}

// measureAgentPlan runs the scripted agent plan of agentPlanSteps steps
// in balanced mode, alone on the model, in a workspace of its own holding
// signup.go, and reports the prompt tokens the model counted per phase
// and in all, and the reflection calls.
func measureAgentPlan(ctx context.Context, r *rig, _ sizes, rep *report) error {
	n := agentPlanSteps
	id := r.id("agentplan")
	ws := filepath.Join(r.dir, "workspace", id)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ws, "signup.go"), []byte(agentPlanSource()), 0o644); err != nil {
		return err
	}
	req := signals.StartRequest{Goal: benchGoal, Workspace: id,
		Plan:      &signals.ExternalPlan{Title: "Signup rules reviewed", Steps: agentPlan(n)},
		Execution: signals.ExecutionPolicy{Mode: signals.ExecBalanced, MaxSteps: n}}
	r.model.Reset()
	t0 := time.Now()
	if _, err := r.pc.Start(ctx, id, req); err != nil {
		return fmt.Errorf("start %s: %w", id, err)
	}
	res, err := r.pc.Result(ctx, id)
	if err != nil {
		return fmt.Errorf("result of %s: %w", id, err)
	}
	if res.Status != signals.StatusCompleted || res.Plan == nil {
		return fmt.Errorf("plan %s ended %s: %s", id, res.Status, res.Error)
	}
	if got := res.Plan.Progress().Totals().Completed; got != n {
		return fmt.Errorf("plan %s completed %d of %d steps", id, got, n)
	}
	kase := fmt.Sprintf("%d steps, agent + llm, balanced", n)
	total := 0
	for _, ph := range agentPlanPhases {
		u := r.model.Usage(ph)
		calls := r.model.Calls(ph)
		if ph == activities.PhaseExecute {
			u.PromptTokens += r.model.Usage(activities.PhaseAgent).PromptTokens
			calls += r.model.Calls(activities.PhaseAgent)
		}
		total += u.PromptTokens
		rep.add(secAgentPlan, kase, ph+" prompt tokens", float64(u.PromptTokens), fmt.Sprintf("%d calls", calls))
	}
	rep.add(secAgentPlan, kase, "total prompt tokens", float64(total), "target ≤ 58,000")
	rep.add(secAgentPlan, kase, "reflection calls", float64(r.model.Calls(activities.PhaseReflect)),
		fmt.Sprintf("of %d steps", n))
	if err := dumpRequests(*agentPlanRequests, r.model.Requests()); err != nil {
		return err
	}
	r.model.Reset()
	r.logf("agent plan of %d steps: %v, %d prompt tokens", n, time.Since(t0).Round(time.Millisecond), total)
	return nil
}

// dumpRequests writes each recorded request's phase and body as one JSON
// line to path; an empty path writes nothing.
func dumpRequests(path string, reqs []offline.Recorded) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, rec := range reqs {
		line := struct {
			Phase   string `json:"phase"`
			Request any    `json:"request"`
		}{rec.Phase, rec.Request}
		if err := enc.Encode(line); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return f.Close()
}
