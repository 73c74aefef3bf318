package activities_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/workspace"
	"github.com/planmode/planmode/workspace/folders"
)

// These benchmarks measure the worker side of a step: the LLM client path
// (prompt templates, go-openai, loopback HTTP and the fake server's JSON,
// whose allocations count too since it runs in the same process) and the
// file tools in a real temporary workspace.

// benchGoal is the goal every LLM benchmark plans for.
const benchGoal = "Add input validation to the signup handler: reject empty names, " +
	"malformed e-mail addresses and passwords shorter than twelve characters, and cover each case with a test."

// benchServer starts a fake OpenAI-compatible server closed with b.
func benchServer(b *testing.B) *offline.Server {
	b.Helper()
	srv := offline.New()
	b.Cleanup(srv.Close)
	return srv
}

// llmPlan returns a pending plan of n llm steps, each with a prompt of a
// few sentences, as the planner writes them.
func llmPlan(n int) plan.Plan {
	p := plan.Plan{ID: fmt.Sprintf("bench-%d", n), Title: "Signup validation", Version: 1, Status: plan.PlanReady}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("s%d", i)
		s := plan.Step{ID: id, Number: i, Title: fmt.Sprintf("Part %d of the signup validation", i),
			Action: plan.ActionLLM, Status: plan.StepPending, Kind: plan.KindCodeGeneration,
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: fmt.Sprintf("Write part %d of the validation "+
				"for the signup handler. Keep the handler's signature, return a 400 with a message naming the "+
				"field, and say which tests cover the change.", i)}}}
		if i > 1 {
			s.DependsOn = []string{fmt.Sprintf("s%d", i-1)}
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

// runLLMPlan runs every step of a copy of fixture in order, each with its
// bounded context and the results of the steps before it, as the
// workflow does; with reflect set, each step is followed by its
// reflection (which may inspect ws) and the plan ends with its summary.
func runLLMPlan(b testing.TB, a activities.Set, fixture plan.Plan, ws string, reflect bool) {
	p := fixture.Clone()
	for i := range p.Steps {
		id := p.Steps[i].ID
		p.Steps[i].Status = plan.StepRunning
		in := activities.StepInput{PlanID: p.ID, Context: plan.BuildStepContext(benchGoal, &p, id), Workspace: ws}
		res, err := a.ExecuteLLMStep(context.Background(), in)
		if err != nil || !res.Success {
			b.Fatalf("step %s: %v %s", id, err, res.Error)
		}
		p.Steps[i].Status, p.Steps[i].Result = plan.StepCompleted, &res
		if reflect {
			reflectOn(b, a, &p, id, ws)
		}
		p.CompactResult(id)
	}
	if !reflect {
		return
	}
	d := p.Digest()
	if _, err := a.Summarize(context.Background(), activities.SummarizeInput{Goal: benchGoal, Digest: &d,
		Status: "completed"}); err != nil {
		b.Fatalf("summarize: %v", err)
	}
}

// reflectOn asks for the reflection after step id as the workflow does:
// the step's context, its result and the steps not done yet.
func reflectOn(b testing.TB, a activities.Set, p *plan.Plan, id, ws string) {
	remaining, more := p.NotDone()
	r, err := a.Reflect(context.Background(), activities.ReflectInput{Context: plan.BuildStepContext(benchGoal, p, id),
		Result: p.StepByID(id).Result, Remaining: remaining, RemainingMore: more, Mode: "balanced", Workspace: ws})
	if err != nil || r.Decision != plan.DecisionContinue {
		b.Fatalf("reflect after %s: %v %s", id, err, r.Decision)
	}
}

// BenchmarkExecuteLLMStepOffline measures one llm step through the
// go-openai adapter against the offline model on loopback: the per-call
// overhead of the client path, with no model time in it.
func BenchmarkExecuteLLMStepOffline(b *testing.B) {
	srv := benchServer(b)
	a := over(srv, llm.Config{})
	p := llmPlan(8)
	runLLMPlan(b, a, p, "", false) // warm the connection and the templates
	in := activities.StepInput{PlanID: p.ID, Context: plan.BuildStepContext(benchGoal, &p, "s5")}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		res, err := a.ExecuteLLMStep(context.Background(), in)
		if err != nil || !res.Success {
			b.Fatalf("execute: %v %s", err, res.Error)
		}
		if n++; n%1024 == 0 {
			srv.Reset() // the server records every request; keep it small
		}
	}
}

// BenchmarkPromptTokensPerPlan runs whole plans of llm steps, each step
// followed by its reflection and the plan by its summary, in a workspace
// reflection may inspect, and reports the prompt tokens the fake server
// counted (four characters a token): prompt-tokens/plan and
// prompt-tokens/step for the execute phase, reflect-tokens/step,
// summarize-tokens/plan, and all-tokens/step over the three phases. Step
// contexts are bounded, so tokens per step stay flat and tokens per plan
// grow linearly with the plan's length. ns/op is the time of one whole
// plan's completions.
func BenchmarkPromptTokensPerPlan(b *testing.B) {
	for _, n := range []int{8, 16, 32, 50} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			srv := benchServer(b)
			ws := benchWorkspace(b)
			a := over(srv, llm.Config{})
			a.Tools.Folders.Root = workspace.Root{Dir: ws}
			fixture := llmPlan(n)
			b.ReportAllocs()
			var execute, reflect, summarize int
			for b.Loop() {
				srv.Reset()
				runLLMPlan(b, a, fixture, ws, true)
				if got := srv.Calls(activities.PhaseExecute); got != n {
					b.Fatalf("%d completions, want %d", got, n)
				}
				if got := srv.Calls(activities.PhaseReflect); got < n {
					b.Fatalf("%d reflections, want at least %d", got, n)
				}
				execute = srv.Usage(activities.PhaseExecute).PromptTokens
				reflect = srv.Usage(activities.PhaseReflect).PromptTokens
				summarize = srv.Usage(activities.PhaseSummarize).PromptTokens
			}
			b.ReportMetric(float64(execute), "prompt-tokens/plan")
			b.ReportMetric(float64(execute)/float64(n), "prompt-tokens/step")
			b.ReportMetric(float64(reflect)/float64(n), "reflect-tokens/step")
			b.ReportMetric(float64(summarize), "summarize-tokens/plan")
			b.ReportMetric(float64(execute+reflect+summarize)/float64(n), "all-tokens/step")
		})
	}
}

// benchSource is a Go file of about 4 KiB, the size of a typical source
// file an agent reads or writes.
func benchSource(version int) string {
	var sb strings.Builder
	sb.WriteString("package signup\n\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&sb, "// rule%03d checks field %d of the signup form (v%d).\n", i, i, version*(i%2))
	}
	return sb.String()
}

// benchWorkspace returns a real temporary workspace holding main.go.
func benchWorkspace(b *testing.B) string {
	b.Helper()
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatalf("workspace: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(benchSource(0)), 0o644); err != nil {
		b.Fatalf("workspace: %v", err)
	}
	return dir
}

// runTool runs one tool call and fails b unless it succeeds.
func runTool(b *testing.B, a *activities.Tools, ws, name, args string) activities.ToolOutput {
	out, err := a.RunTool(context.Background(), activities.ToolInput{PlanID: "p1", StepID: "s1", Workspace: ws,
		Call: activities.ToolCall{ID: "c1", Name: name, Arguments: args}})
	if err != nil || !out.Success {
		b.Fatalf("%s: %v %s", name, err, out.Error)
	}
	return out
}

// BenchmarkRunToolReadFile measures a read_file call on a 4 KiB file:
// sandbox checks, the read and the output cap.
func BenchmarkRunToolReadFile(b *testing.B) {
	ws := benchWorkspace(b)
	a := &activities.Tools{Folders: &folders.Folders{Root: workspace.Root{Dir: ws}}}
	want := benchSource(0)
	b.ReportAllocs()
	for b.Loop() {
		if out := runTool(b, a, ws, "read_file", `{"path":"main.go"}`); out.Output != want {
			b.Fatalf("read %d bytes, want %d", len(out.Output), len(want))
		}
	}
}

// BenchmarkRunToolWriteFile measures a write_file call that modifies a
// 4 KiB file (half its lines change each time): sandbox checks, the write
// and the line counts of the change.
func BenchmarkRunToolWriteFile(b *testing.B) {
	ws := benchWorkspace(b)
	a := &activities.Tools{Folders: &folders.Folders{Root: workspace.Root{Dir: ws}}}
	args := [2]string{}
	for v := range args {
		raw, err := json.Marshal(map[string]string{"path": "main.go", "content": benchSource(v + 1)})
		if err != nil {
			b.Fatalf("args: %v", err)
		}
		args[v] = string(raw)
	}
	b.ReportAllocs()
	v := 0
	for b.Loop() {
		out := runTool(b, a, ws, "write_file", args[v%2])
		if len(out.FilesChanged) != 1 || out.FilesChanged[0].Op != plan.FileModified {
			b.Fatalf("files changed: %+v", out.FilesChanged)
		}
		v++
	}
}

// benchMCPTools returns n MCP tools as a ticket tracker's server lists
// them: a one-sentence description and an input schema of about 420
// bytes (four described properties) each.
func benchMCPTools(n int) []llm.ToolSpec {
	verbs := []string{"list", "get", "create", "update", "close", "comment_on"}
	nouns := []string{"issue", "project", "label", "milestone", "user"}
	var out []llm.ToolSpec
	for i := range n {
		verb, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		schema := fmt.Sprintf(`{"type":"object","properties":{`+
			`"project":{"type":"string","description":"The project key, such as PLAT or WEB."},`+
			`"%s_id":{"type":"string","description":"The %s's id within its project."},`+
			`"fields":{"type":"array","items":{"type":"string"},"description":"Which fields to return; all when empty."},`+
			`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"At most this many results."}},`+
			`"required":["project"]}`, noun, noun)
		out = append(out, llm.ToolSpec{Name: fmt.Sprintf("mcp__tracker__%s_%s", verb, noun),
			Description: fmt.Sprintf("%s a %s of the tracker, as the signed-in user sees it.", strings.ToUpper(verb[:1])+verb[1:], noun),
			Parameters:  json.RawMessage(schema)})
	}
	return out
}

// BenchmarkAgentTurnToolSchemaShare runs the first turn of an agent step
// that may use every built-in tool, alone and with a 30-tool MCP server
// configured, and reports the turn's prompt tokens, the part of them the
// tool schemas are (the fake server counts the specs' JSON, four
// characters a token) and the tools offered (at most plan.MaxStepTools).
func BenchmarkAgentTurnToolSchemaShare(b *testing.B) {
	for _, tc := range []struct {
		name string
		mcp  int
	}{{"builtins", 0}, {"builtins+mcp30", 30}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := benchServer(b)
			a := over(srv, llm.Config{})
			p := llmPlan(8)
			p.Steps[4].Action, p.Steps[4].Config = plan.ActionAgent, plan.StepConfig{Agent: &plan.AgentConfig{
				Prompt: "Add the e-mail check to the signup handler and its test; file a tracker issue for anything left."}}
			in := activities.AgentTurnInput{StepInput: activities.StepInput{PlanID: p.ID,
				Context: plan.BuildStepContext(benchGoal, &p, "s5")}, Iteration: 1, MaxIterations: 10,
				MCPTools: benchMCPTools(tc.mcp)}
			var prompt, schema, offered int
			for b.Loop() {
				srv.Reset()
				if _, err := a.AgentTurn(context.Background(), in); err != nil {
					b.Fatalf("agent turn: %v", err)
				}
				req := srv.Requests()[0].Request
				specs, _ := json.Marshal(req.Tools)
				prompt, schema, offered = srv.Usage(activities.PhaseAgent).PromptTokens, (len(specs)+3)/4, len(req.Tools)
			}
			b.ReportMetric(float64(prompt), "prompt-tokens/turn")
			b.ReportMetric(float64(schema), "schema-tokens/turn")
			b.ReportMetric(100*float64(schema)/float64(prompt), "schema-%")
			b.ReportMetric(float64(offered), "tools")
		})
	}
}
