package activities

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
)

// llmStepInput is an llm step s1 of plan p1.
func llmStepInput() StepInput {
	step := plan.Step{ID: "s1", Title: "Explain", Action: plan.ActionLLM}
	return StepInput{PlanID: "p1", Context: plan.StepContext{Goal: "g", Step: step, Position: 1, Total: 1}}
}

// storeFiles lists every file under dir, relative, temporary ones included.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, rel)
		return err
	})
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return files
}

func readRef(t *testing.T, ref string) string {
	t.Helper()
	require.True(t, filepath.IsAbs(ref), "refs are absolute: %q", ref)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	return string(data)
}

func TestLLMStepOutputKeptWhole(t *testing.T) {
	dir := t.TempDir()
	long := "start " + strings.Repeat("x", 10_000) + " end"
	a := worker{LLM: &scriptLLM{replies: []scripted{text(long)}}, OutputLimit: 1000, Outputs: outputs.New(dir)}.set()

	res, err := a.ExecuteLLMStep(context.Background(), llmStepInput())
	require.NoError(t, err)
	assert.True(t, res.OutputTruncated)
	assert.LessOrEqual(t, len(res.Output), 1000, "history keeps the truncated output")
	assert.Equal(t, filepath.Join(dir, "p1", "s1-llm-1.txt"), res.OutputRef, "outside an activity: the plan id")
	assert.Equal(t, long, readRef(t, res.OutputRef))
}

func TestLLMStepShortOutputKeepsNoFile(t *testing.T) {
	dir := t.TempDir()
	a := worker{LLM: &scriptLLM{replies: []scripted{text("short")}}, Outputs: outputs.New(dir)}.set()
	res, err := a.ExecuteLLMStep(context.Background(), llmStepInput())
	require.NoError(t, err)
	assert.Equal(t, "short", res.Output)
	assert.Empty(t, res.OutputRef)
	assert.Empty(t, storeFiles(t, dir))
}

func TestNoOutputStoreNoRef(t *testing.T) {
	long := strings.Repeat("y", 5000)
	a := worker{LLM: &scriptLLM{replies: []scripted{text(long)}}, OutputLimit: 100}.set()
	res, err := a.ExecuteLLMStep(context.Background(), llmStepInput())
	require.NoError(t, err)
	assert.True(t, res.OutputTruncated)
	assert.Empty(t, res.OutputRef)
}

// runLLMStepActivity runs ExecuteLLMStep as an activity of a fresh test
// environment: each such run has the same workflow, run and activity ids,
// as the attempts of one activity do.
func runLLMStepActivity(t *testing.T, a Set) plan.StepResult {
	t.Helper()
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a.ExecuteLLMStep)
	val, err := env.ExecuteActivity(a.ExecuteLLMStep, llmStepInput())
	require.NoError(t, err)
	var res plan.StepResult
	require.NoError(t, val.Get(&res))
	return res
}

func TestRetryReplacesTheSameFile(t *testing.T) {
	dir := t.TempDir()
	first, second := strings.Repeat("1", 3000), strings.Repeat("2", 2500)
	a := worker{LLM: &scriptLLM{replies: []scripted{text(first), text(second)}}, OutputLimit: 500, Outputs: outputs.New(dir)}.set()

	res1 := runLLMStepActivity(t, a)
	res2 := runLLMStepActivity(t, a)
	require.NotEmpty(t, res1.OutputRef)
	assert.Equal(t, res1.OutputRef, res2.OutputRef, "the same activity names the same file")
	assert.True(t, strings.HasPrefix(res1.OutputRef, filepath.Join(dir, "default-test-workflow-id")+string(filepath.Separator)),
		"inside an activity the folder is the workflow id: %s", res1.OutputRef)
	assert.Regexp(t, `/s1-llm-[0-9]+-default-\.txt$`, res1.OutputRef)
	assert.Equal(t, second, readRef(t, res2.OutputRef), "the retry's output replaced the first")
	assert.Len(t, storeFiles(t, dir), 1, "no temporary file is left behind")
}

// bigWorkspace holds big.txt: more lines than the output cap keeps, with
// markers at the start, the middle and the end.
func bigWorkspace(t *testing.T) (ws, content string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("FIRST LINE\n")
	for i := range 5000 {
		if i == 2500 {
			b.WriteString("MIDDLE LINE\n")
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("LAST LINE\n")
	content = b.String()
	return testkit.Workspace(t, map[string]string{"big.txt": content}), content
}

func TestCommandOutputOverTheCapIsKeptWhole(t *testing.T) {
	ws, content := bigWorkspace(t)
	dir := t.TempDir()
	reg := tools.Builtin(tools.Config{AllowCommands: []string{"cat"}, MaxOutputBytes: 1000})
	a := worker{Tools: reg, Outputs: outputs.New(dir)}.set()

	out, err := a.RunTool(context.Background(), toolCall(ws, "run_command", `{"command":"cat","args":["big.txt"]}`))
	require.NoError(t, err)
	require.True(t, out.Success, out.Error)
	assert.True(t, out.OutputTruncated)
	assert.Contains(t, out.Output, "FIRST LINE", "the result keeps the start")
	assert.Contains(t, out.Output, "LAST LINE", "and the end")
	assert.NotContains(t, out.Output, "MIDDLE LINE")
	assert.Equal(t, filepath.Join(dir, "p1", "s1-tool-c1.txt"), out.OutputRef)
	assert.Equal(t, content, readRef(t, out.OutputRef), "the file holds everything the command printed")
}

func TestCommandOutputFileIsBounded(t *testing.T) {
	ws, content := bigWorkspace(t)
	dir := t.TempDir()
	reg := tools.Builtin(tools.Config{AllowCommands: []string{"cat"}, MaxOutputBytes: 1000})
	a := worker{Tools: reg, Outputs: outputs.New(dir)}.set()
	a.Outputs.Limit = 4096

	out, err := a.RunTool(context.Background(), toolCall(ws, "run_command", `{"command":"cat","args":["big.txt"]}`))
	require.NoError(t, err)
	kept := readRef(t, out.OutputRef)
	assert.True(t, strings.HasPrefix(kept, content[:4096]))
	assert.Contains(t, kept, fmt.Sprintf("[full output stopped at 4096 bytes; %d more bytes not kept]", len(content)-4096))
}

func TestToolOutputCutByTheActivityIsKeptWhole(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"notes.txt": strings.Repeat("n", 3000)})
	dir := t.TempDir()
	a := worker{ToolOutputLimit: 200, Outputs: outputs.New(dir)}.set()

	out, err := a.RunTool(context.Background(), toolCall(ws, "read_file", `{"path":"notes.txt"}`))
	require.NoError(t, err)
	require.True(t, out.Success, out.Error)
	assert.True(t, out.OutputTruncated)
	assert.Contains(t, readRef(t, out.OutputRef), strings.Repeat("n", 3000), "what the tool returned, whole")
}

func TestToolOutputsThatLeaveNoFile(t *testing.T) {
	ws, _ := bigWorkspace(t)
	short := strings.Repeat("s", plan.KeptOutputBytes) // all of it stays in the plan
	require.NoError(t, os.WriteFile(filepath.Join(ws, "short.txt"), []byte(short), 0o644))
	cmd := `{"command":"cat","args":["big.txt"]}`
	cases := []struct {
		name string
		a    func(dir string) Set
		in   ToolInput
	}{
		{"short output", func(dir string) Set {
			return worker{Tools: tools.Builtin(tools.Config{AllowCommands: []string{"cat"}}), Outputs: outputs.New(dir)}.set()
		}, toolCall(ws, "run_command", `{"command":"cat","args":["short.txt"]}`)},
		{"no store", func(string) Set {
			return worker{Tools: tools.Builtin(tools.Config{AllowCommands: []string{"cat"}, MaxOutputBytes: 1000})}.set()
		}, toolCall(ws, "run_command", cmd)},
		{"read-only inspection", func(dir string) Set {
			return worker{ToolOutputLimit: 100, Outputs: outputs.New(dir)}.set()
		}, ToolInput{PlanID: "p1", Workspace: ws, ReadOnly: true,
			Call: ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"big.txt"}`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := tc.a(dir).RunTool(context.Background(), tc.in)
			require.NoError(t, err)
			require.True(t, out.Success, out.Error)
			assert.Empty(t, out.OutputRef)
			assert.Empty(t, storeFiles(t, dir))
		})
	}
}

func TestFailedCommandKeepsItsOutput(t *testing.T) {
	ws, _ := bigWorkspace(t)
	dir := t.TempDir()
	reg := tools.Builtin(tools.Config{AllowCommands: []string{"cat"}, MaxOutputBytes: 1000})
	a := worker{Tools: reg, Outputs: outputs.New(dir)}.set()

	out, err := a.RunTool(context.Background(), toolCall(ws, "run_command", `{"command":"cat","args":["big.txt","missing.txt"]}`))
	require.NoError(t, err)
	assert.False(t, out.Success, "cat exits non-zero for the missing file")
	assert.Contains(t, out.Error, "exited with code")
	kept := readRef(t, out.OutputRef)
	assert.Contains(t, kept, "MIDDLE LINE")
	assert.Contains(t, kept, "missing.txt", "stderr is kept too")
}

func TestToolOutputLongerThanThePlanKeepsIsKeptWhole(t *testing.T) {
	long := strings.Repeat("k", plan.KeptOutputBytes+1)
	ws := testkit.Workspace(t, map[string]string{"long.txt": long})
	dir := t.TempDir()
	a := worker{Tools: tools.Builtin(tools.Config{AllowCommands: []string{"cat"}}), Outputs: outputs.New(dir)}.set()

	out, err := a.RunTool(context.Background(), toolCall(ws, "run_command", `{"command":"cat","args":["long.txt"]}`))
	require.NoError(t, err)
	require.True(t, out.Success, out.Error)
	assert.False(t, out.OutputTruncated, "history holds it whole")
	assert.Equal(t, long, readRef(t, out.OutputRef), "the plan will hold a head only, so the file holds it whole")
}
