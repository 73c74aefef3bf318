package offline

import (
	"fmt"
	"strings"

	"github.com/planmode/planmode/llm"
	openai "github.com/sashabaranov/go-openai"
)

// The fixtures below render requests the way package prompts does, so
// that the brain is tested on the prompts it will see.

// demoFiles is the demo workspace's listing.
var demoFiles = []string{"README.md", "cart.go", "cart_test.go", "go.mod"}

// allTools are the product's tools.
var allTools = []string{"delete_file", "list_files", "read_file", "run_command", "run_tests", "search_code", "search_files", "write_file"}

func request(phase, user string, tools ...string) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model: "planmode-offline",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: phasePrefix + phase + "\nYou are part of planmode."},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
	for _, t := range tools {
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t, Parameters: map[string]any{"type": "object"}}})
	}
	return req
}

func fileList(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return "Workspace files:\n- " + strings.Join(files, "\n- ") + "\n"
}

func clarifyRequest(goal string, ask bool, answers map[string]string, files []string) openai.ChatCompletionRequest {
	yn := "no"
	if ask {
		yn = "yes"
	}
	u := fmt.Sprintf("Request: %s\nquestions allowed: %s\n", goal, yn)
	if len(answers) > 0 {
		u += "\nThe user answered earlier questions:\n"
		for q, a := range answers {
			u += "- Q: " + q + "\n  A: " + a + "\n"
		}
	}
	return request(llm.PhaseClarify, u+"\n"+fileList(files))
}

type planFixture struct {
	goal     string
	count    int
	maxSteps int
	feedback string
	files    []string
	tools    []string
}

func planReq(f planFixture) openai.ChatCompletionRequest {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal: %s\n\n%s", f.goal, fileList(f.files))
	if len(f.tools) > 0 {
		b.WriteString("\nTools available to tool and agent steps:\n")
		for _, t := range f.tools {
			fmt.Fprintf(&b, "- %s: does %s things\n", t, t)
		}
	}
	if f.feedback != "" {
		fmt.Fprintf(&b, "\nThe user reviewed earlier options (Balanced: x; Minimal: y) and asks for new ones with this feedback:\n%s\n", f.feedback)
	}
	fmt.Fprintf(&b, "\nGenerate %d options", f.count)
	if f.maxSteps > 0 {
		fmt.Fprintf(&b, ", each with at most %d steps", f.maxSteps)
	}
	b.WriteString(".\nReply with JSON of exactly this shape (values are examples):\n")
	b.WriteString(`{"options":[{"title":"Short name","steps":[{"id":"s1","config":{"tool":{"name":"search_code","params":{"pattern":"func Login"}}}}]}]}`)
	b.WriteString("\nRules: \"action\" is one of llm, tool, agent.")
	return request(llm.PhasePlan, b.String())
}

func stepUser(title, prompt string, tools []string) string {
	u := fmt.Sprintf("Goal: Add a discount to the cart.\nStep s2 (2 of 3): %s\n\n"+
		"Before:\n- s1 [completed] Survey the workspace: README.md\n\n", title)
	return u + "Task:\n" + prompt
}

// legacyStepUser renders a step the way earlier templates did, which an
// operator's own templates may still do.
func legacyStepUser(title, prompt string, tools []string) string {
	u := fmt.Sprintf("This is iteration 1 of at most 8 for this step (7 remaining after this one).\n\n"+
		"Overall goal: Add a discount to the cart.\nYou are on step 2 of 3: %s (id s2)\n\n"+
		"Steps just before this one:\n- s1 [completed] Survey the workspace: README.md\n\n", title)
	if len(tools) > 0 {
		u += "Tools: " + strings.Join(tools, ", ") + "\n"
	}
	return u + "Your task for this step:\n" + prompt
}

// agentRequest is an agent turn with earlier rounds of tool calls and their
// results, as the adapter replays the transcript.
func agentRequest(title, prompt string, tools []string, rounds ...[]roundCall) openai.ChatCompletionRequest {
	req := request(llm.PhaseAgent, stepUser(title, prompt, tools), tools...)
	n := 0
	for _, r := range rounds {
		asst := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		var results []openai.ChatCompletionMessage
		for _, c := range r {
			n++
			id := fmt.Sprintf("call_%d", n)
			asst.ToolCalls = append(asst.ToolCalls, openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.name, Arguments: c.args}})
			results = append(results, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: c.output})
		}
		req.Messages = append(req.Messages, asst)
		req.Messages = append(req.Messages, results...)
	}
	return req
}

type roundCall struct{ name, args, output string }

func reflectRequest(stepID string, ok bool, errText string, remaining ...string) openai.ChatCompletionRequest {
	res := "succeeded"
	if !ok {
		res = "FAILED"
	}
	u := "Goal: Add a discount.\nStep " + stepID + " (1 of 3): Survey\n\n" +
		"Result of step " + stepID + ": " + res + "\n"
	if errText != "" {
		u += "Error: " + errText + "\n"
	}
	if len(remaining) > 0 {
		u += "\nSteps not done yet:\n- " + strings.Join(remaining, "\n- ") + "\n"
	} else {
		u += "\nNo steps remain.\n"
	}
	return request(llm.PhaseReflect, u)
}

func summarizeRequest(status string, partial bool, steps ...string) openai.ChatCompletionRequest {
	u := "Goal: Add a discount to the cart.\nRun status: " + status
	if partial {
		u += " (the run did not finish: write a partial summary)"
	}
	u += "\nPlan: Balanced — 1 completed, 1 failed, 1 skipped, 0 cancelled, 1 not run, of 4 steps.\nSteps:\n- " +
		strings.Join(steps, "\n- ") + "\n\nWrite the summary."
	return request(llm.PhaseSummarize, u)
}
