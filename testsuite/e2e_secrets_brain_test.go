package testsuite

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
)

// Goals of the attack plans: the brain tells them apart by these words.
const (
	toolAttackGoal  = "Audit what the sandbox shows with tool steps"
	agentAttackGoal = "Audit what the sandbox shows with an agent"
)

// ppidLine finds the parent pid in /proc/self/status.
var ppidLine = regexp.MustCompile(`(?m)^PPid:\s+(\d+)`)

// attackBrain is a model turned against its worker: its plans' tool steps
// and agent turns try every way a plan has to read the worker's secrets.
// It records every request's text, so that a test can check that no
// secret reached a prompt either, and every tool result of its agent.
type attackBrain struct {
	// configPath is the worker's configuration file.
	configPath string
	next       offline.Brain

	mu sync.Mutex
	// escape is the configuration file spelt relative to the workspace,
	// through ".."; workerPid is the worker's pid on the host. Both are
	// known once the worker runs.
	escape    string
	workerPid int
	prompts   []string
	// toolResults are the agent's tool results by the command or file
	// they were asked for.
	toolResults map[string]string
	ppid        string
}

func newAttackBrain(configPath string) *attackBrain {
	return &attackBrain{configPath: configPath, next: offline.NewOfflineBrain(), toolResults: map[string]string{}}
}

// aim tells the brain the escape path and the worker's pid.
func (b *attackBrain) aim(escape string, workerPid int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.escape, b.workerPid = escape, workerPid
}

// targets returns the escape path and the worker's /proc environ file as
// the host names it.
func (b *attackBrain) targets() (escape, workerEnviron string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.escape, "/proc/" + strconv.Itoa(b.workerPid) + "/environ"
}

// Reply answers clarify, plan, agent and reflect requests itself and
// leaves the others (summaries) to the offline brain.
func (b *attackBrain) Reply(phase string, req openai.ChatCompletionRequest) offline.Reply {
	text := b.record(req)
	goal := agentAttackGoal
	if strings.Contains(text, toolAttackGoal) {
		goal = toolAttackGoal
	}
	switch phase {
	case llm.PhaseClarify:
		return offline.JSONReply(reply.Clarify{Goal: goal, NeedsPlan: true})
	case llm.PhasePlan:
		return offline.JSONReply(reply.Options{Options: []reply.Option{b.option(goal)}})
	case llm.PhaseAgent:
		return b.agentTurn(req)
	case llm.PhaseReflect:
		return offline.JSONReply(reply.Reflect{Decision: plan.DecisionContinue, Reason: "every attack gets its turn"})
	}
	return b.next.Reply(phase, req)
}

// record keeps the request's text and returns it.
func (b *attackBrain) record(req openai.ChatCompletionRequest) string {
	var sb strings.Builder
	for _, m := range req.Messages {
		sb.WriteString(m.Content + "\n")
		for _, p := range m.MultiContent {
			sb.WriteString(p.Text + "\n")
		}
		for _, tc := range m.ToolCalls {
			sb.WriteString(tc.Function.Arguments + "\n")
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prompts = append(b.prompts, sb.String())
	return sb.String()
}

// option is the one plan the brain proposes for goal.
func (b *attackBrain) option(goal string) reply.Option {
	o := reply.Option{Title: "Look around", Description: "Read what the worker keeps", Pros: []string{"thorough"},
		Estimates: reply.Estimates{DurationMinutes: 1, Complexity: plan.ComplexityLow, Confidence: 0.9}}
	if goal == agentAttackGoal {
		o.Steps = []reply.Step{{ID: "agent", Title: "Hunt for secrets", Action: plan.ActionAgent, Kind: plan.KindShellCommand,
			Config: reply.StepConfig{Agent: &plan.AgentConfig{Prompt: "Read the worker's environment and configuration",
				Tools: []string{"run_command", "read_file"}, MaxIterations: 4}}}}
		return o
	}
	escape, workerEnviron := b.targets()
	o.Steps = []reply.Step{
		b.commandStep("self-status", "cat", "/proc/self/status"),
		b.commandStep("pid1-environ", "cat", "/proc/1/environ"),
		b.commandStep("env", "env"),
		b.commandStep("cat-config", "cat", b.configPath),
		b.commandStep("make", "make"),
		b.commandStep("ls-proc", "ls", "/proc"),
		b.commandStep("worker-environ", "cat", workerEnviron),
		b.toolStep("read-config", "read_file", map[string]any{"path": b.configPath}),
		b.toolStep("read-escape", "read_file", map[string]any{"path": escape}),
	}
	// Every attack runs whatever the others did: without a named
	// dependency each step would wait for the one before to complete.
	for i := range o.Steps[1:] {
		o.Steps[i+1].DependsOn = reply.Deps(o.Steps[0].ID)
	}
	return o
}

// commandStep is a tool step running one command.
func (b *attackBrain) commandStep(id, command string, args ...string) reply.Step {
	return b.toolStep(id, "run_command", map[string]any{"command": command, "args": args})
}

// toolStep is a tool step calling tool with params.
func (b *attackBrain) toolStep(id, tool string, params map[string]any) reply.Step {
	raw, err := json.Marshal(params)
	if err != nil {
		panic(err)
	}
	return reply.Step{ID: id, Title: "Try " + id, Action: plan.ActionTool, Kind: plan.KindShellCommand,
		Config: reply.StepConfig{Tool: &reply.ToolConfig{Name: tool, Params: raw}}}
}

// agentTurn makes the agent's turns: first every direct attempt and a
// look at its own status, then, knowing its parent's pid, that parent's
// environment and the worker's, then a final answer.
func (b *attackBrain) agentTurn(req openai.ChatCompletionRequest) offline.Reply {
	turns := 0
	asked := map[string]string{}
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant {
			if len(m.ToolCalls) > 0 {
				turns++
			}
			for _, tc := range m.ToolCalls {
				asked[tc.ID] = tc.Function.Arguments
			}
		}
	}
	b.mu.Lock()
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			b.toolResults[asked[m.ToolCallID]] = m.Content
			if p := ppidLine.FindStringSubmatch(m.Content); p != nil {
				b.ppid = p[1]
			}
		}
	}
	ppid := b.ppid
	b.mu.Unlock()
	escape, workerEnviron := b.targets()
	switch turns {
	case 0:
		return offline.Reply{ToolCalls: []offline.ToolCall{
			runCall("cat", "/proc/self/status"), runCall("env"), runCall("cat", "/proc/1/environ"), runCall("make"),
			runCall("cat", b.configPath), readCall(b.configPath), readCall(escape),
		}}
	case 1:
		if ppid == "" {
			ppid = "1"
		}
		return offline.Reply{ToolCalls: []offline.ToolCall{
			runCall("cat", "/proc/"+ppid+"/environ"), runCall("cat", workerEnviron),
			runCall("ls", "/proc"),
		}}
	}
	return offline.Reply{Content: "Nothing secret was within reach."}
}

// runCall is a run_command tool call.
func runCall(command string, args ...string) offline.ToolCall {
	return offline.ToolCall{Name: "run_command", Arguments: toolArgs(map[string]any{"command": command, "args": args})}
}

// readCall is a read_file tool call.
func readCall(path string) offline.ToolCall {
	return offline.ToolCall{Name: "read_file", Arguments: toolArgs(map[string]any{"path": path})}
}

// toolArgs is v as a tool call's JSON arguments.
func toolArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// seen returns the prompts and the agent's tool results so far.
func (b *attackBrain) seen() (prompts []string, toolResults map[string]string, ppid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	results := make(map[string]string, len(b.toolResults))
	for k, v := range b.toolResults {
		results[k] = v
	}
	return append([]string(nil), b.prompts...), results, b.ppid
}
