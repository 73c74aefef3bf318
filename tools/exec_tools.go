package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

type runCommandArgs struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// runCommandTool runs one allowlisted command with run, without a shell.
func runCommandTool(cfg Config, run runner) Tool {
	allowed := "none"
	if len(cfg.AllowCommands) > 0 {
		allowed = strings.Join(cfg.AllowCommands, ", ")
	}
	return Tool{
		Spec: Spec{
			Name: "run_command",
			Description: fmt.Sprintf("Run one program in the workspace root without a shell (no pipes, "+
				"redirections, globbing or variables). Allowed: %s. Times out after %s.", allowed, cfg.CommandTimeout),
			Parameters: schema(map[string]string{
				"command": `{"type":"string","description":"program name, as allowed"}`,
				"args":    `{"type":"array","items":{"type":"string"},"description":"one argument per item"}`,
			}, "command"),
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a runCommandArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("command", a.Command); err != nil {
				return Result{}, err
			}
			if !cfg.allowed(a.Command) {
				return Result{}, notAllowed(cfg, a.Command)
			}
			return run.run(ctx, env, a.Command, a.Args)
		},
	}
}

// notAllowed explains a refused command.
func notAllowed(cfg Config, command string) error {
	if len(cfg.AllowCommands) == 0 {
		return Failf("command %q is not allowed: no commands are allowed in this workspace", command)
	}
	hint := ""
	if strings.ContainsAny(command, " \t") {
		hint = "; pass arguments in args, not in command"
	}
	return Failf("command %q is not allowed; allowed: %s%s", command, strings.Join(cfg.AllowCommands, ", "), hint)
}

type runTestsArgs struct {
	// Scope is a hint from plan templates (all, affected, related); the
	// whole suite runs either way.
	Scope string `json:"scope,omitempty"`
}

// runTestsTool runs the workspace's test command with run.
func runTestsTool(cfg Config, run runner) Tool {
	return Tool{
		Spec: Spec{
			Name: "run_tests",
			Description: "Run the workspace's tests: the configured command, else go test ./... (go.mod), " +
				"npm test (package.json test script) or make test (Makefile test target).",
			Parameters: schema(map[string]string{
				"scope": `{"type":"string","enum":["all","affected","related"],"description":"hint only; the whole suite runs"}`,
			}),
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a runTestsArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			argv, err := TestCommand(env.Root.Root(), cfg)
			if err != nil {
				return Result{}, err
			}
			if !cfg.AllowTests && !cfg.allowed(argv[0]) {
				return Result{}, Failf("run_tests would run %s, but %q is not an allowed command and tests are not allowed",
					commandLine(argv[0], argv[1:]), argv[0])
			}
			return run.run(ctx, env, argv[0], argv[1:])
		},
	}
}

// makeTestTarget finds a "test:" rule in a Makefile.
var makeTestTarget = regexp.MustCompile(`(?m)^test\s*:`)

// TestCommand returns the command run_tests runs in root: cfg.TestCommand
// when set, else go test ./... for a go.mod, npm test for a package.json
// with a test script, make test for a Makefile with a test target. The
// files are read through the workspace root, as the file tools read them:
// one that is, or is swapped for, a symlink leading out, a named pipe or a
// file with more than one hard link counts as absent. It returns a
// [*ToolError] when none applies.
func TestCommand(root string, cfg Config) ([]string, error) {
	if len(cfg.TestCommand) > 0 {
		return cfg.TestCommand, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	defer r.Close()
	if _, ok := readSmall(r, "go.mod"); ok {
		return []string{"go", "test", "./..."}, nil
	}
	if data, ok := readSmall(r, "package.json"); ok && hasTestScript(data) {
		return []string{"npm", "test"}, nil
	}
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if data, ok := readSmall(r, name); ok && makeTestTarget.Match(data) {
			return []string{"make", "test"}, nil
		}
	}
	return nil, Failf("no test command found: the workspace has no go.mod, no package.json with a test script " +
		"and no Makefile with a test target, and no test command is configured")
}

// detectReadBytes bounds what run_tests' detection reads of a file.
const detectReadBytes = 1 << 20

// readSmall reads the regular file name of r, as read_file would; ok is
// false for anything it refuses.
func readSmall(r *os.Root, name string) ([]byte, bool) {
	data, err := readRegular(r, name, name, detectReadBytes)
	return data, err == nil
}

// hasTestScript reports whether a package.json defines scripts.test.
func hasTestScript(data []byte) bool {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	return json.Unmarshal(data, &pkg) == nil && pkg.Scripts["test"] != ""
}
