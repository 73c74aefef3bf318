package activities

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/internal/testkit"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/phases"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/tools"
	"github.com/planmode/planmode/workspace"
)

// toolCall builds a ToolInput.
func toolCall(ws, name, args string) ToolInput {
	return ToolInput{PlanID: "p1", StepID: "s1", Workspace: ws, Call: ToolCall{ID: "c1", Name: name, Arguments: args}}
}

// requireAppError asserts err is a non-retryable ApplicationError of type
// typ whose message holds msg.
func requireAppError(t *testing.T, err error, typ string, msg string) {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	assert.Equal(t, string(typ), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	assert.Contains(t, appErr.Error(), msg)
}

func TestRunToolWritesAndReads(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	a := worker{Workspace: workspace.Root{Dir: filepath.Dir(ws)}}.set()
	out, err := a.RunTool(context.Background(), toolCall(ws, "write_file", `{"path":"src/a.go","content":"package a\n"}`))
	require.NoError(t, err)
	assert.True(t, out.Success, out.Error)
	assert.Equal(t, []plan.FileChange{{Path: "src/a.go", Op: plan.FileCreated, LinesAdded: 1}}, out.FilesChanged)

	out, err = a.RunTool(context.Background(), toolCall(ws, "read_file", `{"path":"src/a.go"}`))
	require.NoError(t, err)
	assert.True(t, out.Success)
	assert.Equal(t, "package a\n", out.Output)
}

func TestRunToolFailuresAreOutputs(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.txt": "a"})
	a := worker{Workspace: workspace.Root{Dir: filepath.Dir(ws)}}.set()
	tests := []struct {
		name string
		in   ToolInput
		want string
	}{
		{name: "path escape", in: toolCall(ws, "read_file", `{"path":"../../etc/passwd"}`),
			want: `path "../../etc/passwd" leaves the workspace`},
		{name: "absolute outside", in: toolCall(ws, "read_file", `{"path":"/etc/passwd"}`),
			want: "is outside the workspace"},
		{name: "missing file", in: toolCall(ws, "read_file", `{"path":"nope"}`), want: "no such file"},
		{name: "bad arguments", in: toolCall(ws, "read_file", `{"file":"a.txt"}`), want: `unknown argument "file"`},
		{name: "malformed arguments", in: toolCall(ws, "read_file", `{"path":`), want: "invalid arguments"},
		{name: "unknown tool", in: toolCall(ws, "nope", `{}`),
			want: "unknown tool nope; available: delete_file, finish_plan, list_files, read_file, run_command, run_tests, " +
				"search_code, search_files, write_file"},
		{name: "unknown tool read-only", in: ToolInput{Workspace: ws, ReadOnly: true, Call: ToolCall{Name: "nope"}},
			want: "unknown tool nope; available: list_files, read_file, search_code, search_files"},
		{name: "command not allowed", in: toolCall(ws, "run_command", `{"command":"rm","args":["a.txt"]}`),
			want: `command "rm" is not allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := a.RunTool(context.Background(), tt.in)
			require.NoError(t, err, "a tool failure is not an activity error")
			assert.False(t, out.Success)
			assert.Contains(t, out.Error, tt.want)
		})
	}
	assert.FileExists(t, filepath.Join(ws, "a.txt"))
}

func TestRunToolReadOnlyRefusesChanges(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"a.txt": "a"})
	a := worker{Workspace: workspace.Root{Dir: filepath.Dir(ws)}}.set()
	for _, call := range []ToolCall{
		{Name: "write_file", Arguments: `{"path":"b.txt","content":"b"}`},
		{Name: "delete_file", Arguments: `{"path":"a.txt"}`},
		{Name: "run_tests", Arguments: `{}`},
	} {
		out, err := a.RunTool(context.Background(), ToolInput{Workspace: ws, Call: call, ReadOnly: true})
		require.NoError(t, err)
		assert.False(t, out.Success, call.Name)
		assert.Contains(t, out.Error, "tool "+call.Name+" changes the workspace and is not available while planning")
		assert.Contains(t, out.Error, "read-only tools: list_files, read_file, search_code, search_files")
	}
	assert.NoFileExists(t, filepath.Join(ws, "b.txt"))
	assert.FileExists(t, filepath.Join(ws, "a.txt"))

	out, err := a.RunTool(context.Background(), ToolInput{Workspace: ws, ReadOnly: true,
		Call: ToolCall{Name: "list_files", Arguments: `{}`}})
	require.NoError(t, err)
	assert.True(t, out.Success)
	assert.Equal(t, "a.txt", out.Output)
}

func TestRunToolWorkspaceResolution(t *testing.T) {
	root := testkit.Workspace(t, map[string]string{"proj/x.txt": "x", "file.txt": "f"})
	outside := testkit.Workspace(t, map[string]string{"secret.txt": "s"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	a := worker{Workspace: workspace.Root{Dir: root}}.set()

	tests := []struct {
		name, ws string
		want     string // listing when accepted
		reject   string
	}{
		{name: "empty under a root", ws: "", reject: "must be a folder inside workspace.root, not the root"},
		{name: "the root itself", ws: root, reject: "is the workspace root"},
		{name: "absolute inside", ws: filepath.Join(root, "proj"), want: "x.txt"},
		{name: "relative inside", ws: "proj", want: "x.txt"},
		{name: "absolute outside", ws: outside, reject: "is outside the workspace root"},
		{name: "relative escape", ws: "../", reject: "is outside the workspace root"},
		{name: "symlink escape", ws: "link", reject: "is outside the workspace root"},
		{name: "missing", ws: "nope", reject: "no such file"},
		{name: "a file", ws: "file.txt", reject: "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := a.RunTool(context.Background(), toolCall(tt.ws, "list_files", `{}`))
			if tt.reject != "" {
				requireAppError(t, err, ErrorTypeWorkspace, tt.reject)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, out.Output)
		})
	}

	_, err := worker{}.set().RunTool(context.Background(), toolCall("", "list_files", `{}`))
	requireAppError(t, err, ErrorTypeWorkspace, "no workspace")
	out, err := worker{}.set().RunTool(context.Background(), toolCall(outside, "list_files", `{}`))
	require.NoError(t, err, "without a root any workspace is accepted")
	assert.Equal(t, "secret.txt", out.Output)
}

// customTools returns a registry with test tools next to the built-ins.
func customTools(t *testing.T) *tools.Registry {
	t.Helper()
	reg := tools.Builtin(tools.DefaultConfig())
	add := func(name string, run func(context.Context, tools.Env, json.RawMessage) (tools.Result, error)) {
		require.NoError(t, reg.Register(tools.Tool{Spec: tools.Spec{Name: name, Description: name}, Run: run}))
	}
	add("fault", func(context.Context, tools.Env, json.RawMessage) (tools.Result, error) {
		return tools.Result{}, errors.New("disk on fire")
	})
	add("soft_fail", func(context.Context, tools.Env, json.RawMessage) (tools.Result, error) {
		return tools.Result{Output: "partial", CommandsRun: 1}, tools.Failf("lint found 3 problems")
	})
	add("chatty", func(context.Context, tools.Env, json.RawMessage) (tools.Result, error) {
		return tools.Result{Output: strings.Repeat("z", 1000)}, nil
	})
	add("beating", func(ctx context.Context, env tools.Env, _ json.RawMessage) (tools.Result, error) {
		env.Beat("working", 1)
		return tools.Result{Output: env.PlanID + "/" + env.StepID}, nil
	})
	add("blocking", func(ctx context.Context, env tools.Env, _ json.RawMessage) (tools.Result, error) {
		<-ctx.Done()
		return tools.Result{}, tools.Failf("interrupted")
	})
	return reg
}

func TestRunToolErrorMapping(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	a := worker{Tools: customTools(t), ToolOutputLimit: 100}.set()

	_, err := a.RunTool(context.Background(), toolCall(ws, "fault", ``))
	require.Error(t, err, "a worker fault fails the activity")
	assert.Contains(t, err.Error(), "run tool fault: disk on fire")

	out, err := a.RunTool(context.Background(), toolCall(ws, "soft_fail", ``))
	require.NoError(t, err)
	assert.Equal(t, ToolOutput{Output: "partial", Error: "lint found 3 problems", CommandsRun: 1}, out)

	out, err = a.RunTool(context.Background(), toolCall(ws, "chatty", ``))
	require.NoError(t, err)
	assert.True(t, out.Success)
	assert.True(t, out.OutputTruncated)
	assert.Less(t, len(out.Output), 200)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = a.RunTool(ctx, toolCall(ws, "blocking", ``))
	require.ErrorIs(t, err, context.Canceled, "cancellation wins over the tool's own failure")
}

func TestRunToolHeartbeatsInActivity(t *testing.T) {
	ws := testkit.Workspace(t, nil)
	a := worker{Tools: customTools(t)}.set()
	var suite sdktest.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a.RunTool)
	var mu sync.Mutex
	var beats []string
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var what string
		var n int
		require.NoError(t, details.Get(&what, &n))
		mu.Lock()
		beats = append(beats, what)
		mu.Unlock()
	})
	val, err := env.ExecuteActivity(a.RunTool, toolCall(ws, "beating", ``))
	require.NoError(t, err)
	var out ToolOutput
	require.NoError(t, val.Get(&out))
	assert.Equal(t, ToolOutput{Success: true, Output: "p1/s1"}, out)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"working"}, beats)
}

func TestToolsAreOfferedAsSpecs(t *testing.T) {
	reg := tools.Builtin(tools.DefaultConfig())
	a := worker{Tools: reg}.set()
	offered := a.specs()
	require.NotNil(t, offered)
	specs := offered.Specs([]string{"read_file", "nope"})
	require.Len(t, specs, 1)
	assert.Equal(t, "read_file", specs[0].Name)
	assert.JSONEq(t, string(reg.Specs([]string{"read_file"})[0].Parameters), string(specs[0].Parameters))
	assert.Len(t, offered.Specs(nil), 9)
	ro, ok := offered.(interface{ ReadOnlySpecs() []llm.ToolSpec })
	require.True(t, ok)
	assert.Len(t, ro.ReadOnlySpecs(), 4)

	custom := worker{ToolSpecs: phases.ToolSpecsOf(tools.NewRegistry()), Tools: reg}.set()
	assert.Empty(t, custom.specs().Specs(nil), "ToolSpecs keeps precedence")
}

func TestSnapshotActivitiesAndTheirRefusals(t *testing.T) {
	ws := testkit.Workspace(t, map[string]string{"big.bin": strings.Repeat("x", 4096)})
	ctx := context.Background()
	_, err := (worker{Workspace: workspace.Root{SnapshotDir: t.TempDir(), SnapshotLimit: 1024}}.set()).
		SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	requireAppError(t, err, ErrorTypeSnapshot, "over the 0 MiB snapshot limit")
	_, err = (worker{Workspace: workspace.Root{Dir: testkit.Workspace(t, nil), SnapshotDir: t.TempDir()}}.set()).
		SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	requireAppError(t, err, ErrorTypeWorkspace, "outside the workspace root")
	_, err = (worker{Workspace: workspace.Root{SnapshotDir: t.TempDir()}}.set()).RestoreWorkspace(ctx, RestoreInput{SnapshotID: "../etc", Workspace: ws})
	requireAppError(t, err, ErrorTypeSnapshot, "invalid snapshot id")

	a := worker{Workspace: workspace.Root{SnapshotDir: t.TempDir()}}.set()
	snap, err := a.SnapshotWorkspace(ctx, SnapshotInput{PlanID: "p", Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, 1, snap.Files)
	require.NoError(t, os.Remove(filepath.Join(ws, "big.bin")))
	out, err := a.RestoreWorkspace(ctx, RestoreInput{SnapshotID: snap.SnapshotID, Workspace: ws})
	require.NoError(t, err)
	assert.Equal(t, RestoreOutput{Restored: []string{"big.bin"}, Removed: []string{}}, out)
}
