package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/planmode/planmode/tools"
)

// A Go program adds a tool with a spec (name, description, JSON schema of
// its arguments) and a run function; failures the agent should see are
// ToolErrors.
func ExampleRegistry_Register() {
	reg := tools.Builtin(tools.DefaultConfig())
	err := reg.Register(tools.Tool{
		Spec: tools.Spec{
			Name:        "count_lines",
			Description: "Count the lines of a workspace file.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			ReadOnly:    true,
		},
		Run: func(ctx context.Context, env tools.Env, args json.RawMessage) (tools.Result, error) {
			var a struct {
				Path string `json:"path"`
			}
			if err := tools.DecodeArgs(args, &a); err != nil {
				return tools.Result{}, err
			}
			data, err := env.Root.ReadFile(a.Path, 0) // refuses paths outside the workspace
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Output: fmt.Sprint(strings.Count(string(data), "\n"))}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(dir+"/notes.txt", []byte("one\ntwo\n"), 0o644)
	sb, _ := tools.NewSandbox(dir)
	tool, _ := reg.Get("count_lines")

	res, _ := tool.Run(context.Background(), tools.Env{Root: sb}, json.RawMessage(`{"path":"notes.txt"}`))
	fmt.Println(res.Output)
	_, err = tool.Run(context.Background(), tools.Env{Root: sb}, json.RawMessage(`{"path":"../notes.txt"}`))
	fmt.Println(err, tools.IsToolError(err))
	fmt.Println(reg.Register(tools.Tool{Spec: tools.Spec{Name: "count_lines"}, Run: tool.Run}))
	// Output:
	// 2
	// path "../notes.txt" leaves the workspace true
	// register tool "count_lines": a tool with that name is already registered
}

// A worker checks the command sandbox at start: it logs what isolates
// commands, warns loudly when nothing does, and learns at once, rather
// than at a plan's first command, that commands would be refused.
func ExampleDetectCommandSandbox() {
	cfg := tools.DefaultConfig()
	cfg.Sandbox = tools.SandboxNone // an operator's choice; auto is the default
	sbx, err := tools.DetectCommandSandbox(cfg)
	switch {
	case errors.Is(err, tools.ErrNoSandbox):
		fmt.Println("commands will be refused:", err)
	case err != nil:
		fmt.Println("bad tools settings:", err)
	case !sbx.Isolated():
		// A worker logs sbx itself, which also says how commands are
		// limited here (tools.limits): by a cgroup, or rlimits and a
		// watchdog.
		fmt.Println("WARNING: commands are not isolated; tools.sandbox is", sbx.Mode())
	default:
		fmt.Println("command sandbox:", sbx)
	}
	// Output:
	// WARNING: commands are not isolated; tools.sandbox is none
}
