package offline

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolArgs are the argument shapes of the product's tools; the brain's
// calls must decode into them strictly, as the tools decode them.
var toolArgs = map[string]func() any{
	"list_files": func() any {
		return &struct {
			Path      string
			Recursive bool
			Max       int
		}{}
	},
	"read_file": func() any {
		return &struct {
			Path          string
			Offset, Limit int
		}{}
	},
	"write_file": func() any { return &struct{ Path, Content string }{} },
	"search_code": func() any {
		return &struct {
			Pattern, Glob string
			Max           int
		}{}
	},
	"run_tests": func() any { return &struct{ Scope string }{} },
}

// demoWorkspace is the demo's files and their content.
var demoWorkspace = map[string]string{
	"README.md":    "# shop\n\nA tiny sample workspace.\n",
	"cart.go":      "// Package shop is a tiny sample.\npackage shop\n\ntype Cart struct{}\n",
	"cart_test.go": "package shop\n",
	"go.mod":       "module example.com/shop\n\ngo 1.22\n",
}

// runTool plays a tool against ws, as the activities would.
func runTool(t *testing.T, ws map[string]string, tc ToolCall) string {
	t.Helper()
	mk, ok := toolArgs[tc.Name]
	require.True(t, ok, "unknown tool %s", tc.Name)
	dst := mk()
	dec := json.NewDecoder(bytes.NewReader([]byte(tc.Arguments)))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(dst), "%s %s", tc.Name, tc.Arguments)
	var args map[string]any
	require.NoError(t, json.Unmarshal([]byte(tc.Arguments), &args))
	switch tc.Name {
	case "list_files":
		var names []string
		for f := range ws {
			names = append(names, f)
		}
		sort.Strings(names)
		return strings.Join(names, "\n")
	case "read_file":
		content, ok := ws[args["path"].(string)]
		if !ok {
			return "error: no such file"
		}
		return content
	case "write_file":
		ws[args["path"].(string)] = args["content"].(string)
		return "wrote " + args["path"].(string)
	case "run_tests":
		return "ok  example.com/shop 0.01s"
	}
	return "cart.go:4: type Cart struct{}"
}

// driveAgent runs agent turns until the brain answers, playing the tools
// as the workflow does, and returns the tool names called per round and
// the final content: a reply without tool calls, or the answer of a
// finish_step call, which ends the step after the turn's other calls
// (the tools played here all succeed).
func driveAgent(t *testing.T, b *OfflineBrain, ws map[string]string, title, prompt string, offered []string) ([][]string, string) {
	t.Helper()
	var rounds [][]roundCall
	var names [][]string
	for turn := 0; turn < 10; turn++ {
		r := b.Reply(llm.PhaseAgent, agentRequest(title, prompt, offered, rounds...))
		if len(r.ToolCalls) == 0 {
			return names, r.Content
		}
		var round []roundCall
		var called []string
		answer, finished := "", false
		for _, tc := range r.ToolCalls {
			assert.Contains(t, offered, tc.Name, "only offered tools")
			called = append(called, tc.Name)
			if tc.Name == tools.FinishStep {
				var err error
				answer, err = tools.DecodeFinishStep(json.RawMessage(tc.Arguments))
				require.NoError(t, err, "the worker reads the answer strictly")
				finished = true
				continue
			}
			round = append(round, roundCall{name: tc.Name, args: tc.Arguments, output: runTool(t, ws, tc)})
		}
		names = append(names, called)
		if finished {
			return names, answer
		}
		rounds = append(rounds, round)
	}
	t.Fatal("the agent never answered")
	return nil, ""
}

func copyWorkspace() map[string]string {
	ws := map[string]string{}
	for k, v := range demoWorkspace {
		ws[k] = v
	}
	return ws
}

func TestAgentToolSequences(t *testing.T) {
	writeTools := []string{"list_files", "search_code", "read_file", "write_file"}
	tests := []struct {
		name    string
		title   string
		prompt  string
		tools   []string
		rounds  [][]string
		written map[string]string // file → text it must contain
	}{
		{
			name: "writes a new markdown file it names", title: "Write the notes",
			prompt: "Write DISCOUNT.md describing the discount rules for cart.go", tools: writeTools,
			rounds:  [][]string{{"list_files"}, {"read_file"}, {"write_file"}},
			written: map[string]string{"DISCOUNT.md": "offline model"},
		},
		{
			name: "never overwrites existing code", title: "Apply the change",
			prompt: "Update cart.go to add a discount: Add a discount", tools: writeTools,
			rounds:  [][]string{{"list_files"}, {"read_file"}, {"write_file"}},
			written: map[string]string{"NOTES.md": "offline model", "cart.go": "type Cart struct{}"},
		},
		{
			name: "new Go file gets the package of the code", title: "Implement",
			prompt: "Create discount.go with a Discount function", tools: writeTools,
			rounds:  [][]string{{"list_files"}, {"read_file"}, {"write_file"}},
			written: map[string]string{"discount.go": "package shop"},
		},
		{
			name: "appends to an existing markdown file", title: "Document",
			prompt: "Update README.md with usage notes", tools: writeTools,
			rounds:  [][]string{{"list_files"}, {"read_file"}, {"write_file"}},
			written: map[string]string{"README.md": "# shop\n\nA tiny sample workspace.\n\n## Document"},
		},
		{
			name: "read-only step only looks", title: "Find the related code",
			prompt: "Find the code responsible for this bug: Fix the Total crash",
			tools:  []string{"list_files", "search_code", "read_file"},
			rounds: [][]string{{"list_files", "search_code"}, {"read_file"}},
		},
		{
			name: "a review does not write", title: "Review the change",
			prompt: "Review the change for mistakes: Add a discount", tools: writeTools,
			rounds: [][]string{{"list_files"}, {"read_file"}},
		},
		{
			name: "runs the tests when asked", title: "Verify",
			prompt: "Verify the change and run the tests", tools: []string{"list_files", "read_file", "run_tests"},
			rounds: [][]string{{"list_files"}, {"read_file"}, {"run_tests"}},
		},
		{
			name: "no tools: answers at once", title: "Final", prompt: "Write the fix", tools: nil,
		},
		// Offered finish_step, the brain gives its account with the calls
		// that end the step's work: a writing step takes two turns less
		// than three rounds and an answer, one turn less.
		{
			name: "writes and finishes in the same turn", title: "Write the notes",
			prompt: "Write DISCOUNT.md describing the discount rules for cart.go", tools: finishing(writeTools),
			rounds:  [][]string{{"list_files"}, {"read_file"}, {"write_file", tools.FinishStep}},
			written: map[string]string{"DISCOUNT.md": "offline model"},
		},
		{
			name: "runs the tests and finishes", title: "Verify",
			prompt: "Verify the change and run the tests", tools: finishing([]string{"list_files", "read_file", "run_tests"}),
			rounds: [][]string{{"list_files"}, {"read_file"}, {"run_tests", tools.FinishStep}},
		},
		{
			// Its account needs what the reads return: it answers after them.
			name: "a step that only looks answers after its reads", title: "Review the change",
			prompt: "Review the change for mistakes: Add a discount", tools: finishing(writeTools),
			rounds: [][]string{{"list_files"}, {"read_file"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := copyWorkspace()
			rounds, final := driveAgent(t, NewOfflineBrain(), ws, tt.title, tt.prompt, tt.tools)
			assert.Equal(t, tt.rounds, rounds)
			assert.LessOrEqual(t, len(rounds), defaultToolRounds)
			assert.Contains(t, final, "Step “"+tt.title+"”")
			assert.Contains(t, final, OfflineNotice)
			for _, r := range rounds {
				for _, name := range r {
					if name == tools.FinishStep {
						continue
					}
					assert.Contains(t, final, name, "the final account names the tools used")
				}
			}
			for f, want := range tt.written {
				assert.Contains(t, ws[f], want, f)
			}
			if len(tt.written) == 0 {
				assert.Equal(t, demoWorkspace, ws, "nothing written")
			}
		})
	}
}

// finishing returns names with finish_step offered too, as the worker
// offers it on every agent turn but the last.
func finishing(names []string) []string {
	return append(append([]string(nil), names...), tools.FinishStep)
}

func TestAgentAnswersAfterARefusedFinish(t *testing.T) {
	// The write failed, so the workflow refused the finish: the next turn
	// does not write again but answers, naming what happened.
	refused := "error: the step did not end: write_file failed in this turn (see the result)"
	req := agentRequest("Write the notes", "Write DISCOUNT.md for cart.go", finishing([]string{"read_file", "write_file"}),
		[]roundCall{{"read_file", `{"path":"cart.go"}`, demoWorkspace["cart.go"]}},
		[]roundCall{{"write_file", `{"path":"DISCOUNT.md","content":"x"}`, "error: disk full"},
			{tools.FinishStep, `{"answer":"wrote DISCOUNT.md"}`, refused}})
	r := NewOfflineBrain().Reply(llm.PhaseAgent, req)
	assert.Empty(t, r.ToolCalls, "the step answers: its work was tried")
	assert.Contains(t, r.Content, "write_file DISCOUNT.md: error: disk full")
	assert.Contains(t, r.Content, "finish_step: error: the step did not end")
}

func TestAgentFinishAnswerIsBounded(t *testing.T) {
	// However many calls the account names, the answer stays under the
	// worker's bound, which would refuse it.
	long := strings.Repeat("x", 300)
	var rounds [][]roundCall
	for i := 0; i < 40; i++ {
		rounds = append(rounds, []roundCall{{"read_file", `{"path":"` + long + `"}`, long}})
	}
	got := account(newView(agentRequest("Write", "Write x.md", nil, rounds...)), step{title: "Write"}, nil)
	require.Greater(t, strings.Count(got, "read_file"), 5, "the account is long enough to be cut")
	args, err := json.Marshal(map[string]string{"answer": got})
	require.NoError(t, err)
	_, err = tools.DecodeFinishStep(args)
	require.NoError(t, err)
	assert.Equal(t, tools.FinishStep, finishStep, "the brain calls the worker's tool by its name")
}

func TestAgentStopsAfterMaxRounds(t *testing.T) {
	b := NewOfflineBrain(WithMaxToolRounds(1))
	rounds, final := driveAgent(t, b, copyWorkspace(), "Implement", "Create notes.md", []string{"list_files", "read_file", "write_file"})
	assert.Equal(t, [][]string{{"list_files"}}, rounds)
	assert.Contains(t, final, "list_files")

	// A prompt that says this is the last iteration gets an answer at once.
	req := agentRequest("Implement", "Create notes.md", []string{"list_files", "write_file"})
	req.Messages[0].Content += "\nThis is your last iteration: no tools are available now, answer with your result."
	r := NewOfflineBrain().Reply(llm.PhaseAgent, req)
	assert.Empty(t, r.ToolCalls)
	assert.Contains(t, r.Content, "No tools were called")

	// However the transcript looks, three rounds end the step.
	many := agentRequest("Loop", "Write x.md", []string{"write_file"},
		[]roundCall{{"read_file", `{"path":"a"}`, "a"}}, []roundCall{{"read_file", `{"path":"b"}`, "b"}},
		[]roundCall{{"read_file", `{"path":"c"}`, "c"}})
	r = NewOfflineBrain().Reply(llm.PhaseAgent, many)
	assert.Empty(t, r.ToolCalls)
	assert.Contains(t, r.Content, "read_file c")
}
