package cli

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nowhere is an address no Temporal listens on: a command that gets as
// far as dialling fails with exit 2, not with the rejection under test.
func nowhere(t *testing.T) string {
	t.Helper()
	port, err := devserver.FreePort()
	require.NoError(t, err)
	return "127.0.0.1:" + strconv.Itoa(port)
}

func TestListRejectsUnknownFilterValues(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "awaiting typo", args: []string{"--awaiting", "selction"},
			wantErr: `invalid argument "selction" for "--awaiting" flag: want one of none, workspace, selection, clarification, confirmation, approval, resume`},
		{name: "phase typo", args: []string{"--phase", "excuting"},
			wantErr: `want one of awaiting-workspace, clarifying, planning, awaiting-selection, executing, reflecting, summarizing, completed, failed, cancelled`},
		{name: "empty awaiting", args: []string{"--awaiting", ""}, wantErr: `invalid argument "" for "--awaiting" flag`},
		{name: "no limit", args: []string{"--limit", "0"}, wantErr: "--limit 0: want 1 or more"},
		{name: "limit not a number", args: []string{"--limit", "ten"}, wantErr: `invalid argument "ten" for "--limit" flag`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, out, errOut := newTestDeps(t, "")
			code := run(context.Background(), d, append([]string{"list", "--address", nowhere(t)}, tc.args...))
			assert.Equal(t, exitRejected, code)
			assert.Contains(t, errOut.String(), tc.wantErr)
			assert.NotContains(t, out.String(), "No plans", "a typo is not an empty answer")
		})
	}
}

func TestListAcceptsEveryKnownFilterValue(t *testing.T) {
	for _, v := range awaitingValues {
		var got string
		require.NoError(t, newChoice(&got, awaitingValues...).Set(string(v)))
		assert.Equal(t, string(v), got)
	}
	for _, v := range phaseValues {
		var got string
		require.NoError(t, newChoice(&got, phaseValues...).Set(string(v)))
		assert.Equal(t, string(v), got)
	}
}

// constantsOfType returns the values of the string constants of type
// typeName declared in the non-test files of the package in dir.
func constantsOfType(t *testing.T, dir, typeName string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var values []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := spec.Type.(*ast.Ident); ok && id.Name == typeName {
				for _, v := range spec.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						values = append(values, s)
					}
				}
			}
			return true
		})
	}
	require.NotEmpty(t, values, "no %s constants in %s", typeName, dir)
	return values
}

// TestListFiltersKnowEveryValue keeps list's filters in step with the
// contract: a phase or awaiting value added there must be accepted here.
func TestListFiltersKnowEveryValue(t *testing.T) {
	awaiting := make([]string, len(awaitingValues))
	for i, v := range awaitingValues {
		awaiting[i] = string(v)
	}
	assert.ElementsMatch(t, constantsOfType(t, "../../signals", "Awaiting"), awaiting)
	phases := make([]string, len(phaseValues))
	for i, v := range phaseValues {
		phases[i] = string(v)
	}
	assert.ElementsMatch(t, constantsOfType(t, "../../plan", "Phase"), phases)
}

// validArgs are arguments each command takes; the others take a plan id.
var validArgs = map[string][]string{
	"list":         nil,
	"start":        {"Fix the cart"},
	"confirm-skip": {"plan-42", "skip-1", "--approve"},
	"approvals":    nil,
	"approve":      {"plan-42", "approval-1"},
	"deny":         {"plan-42", "approval-1", "--reason", "no"},
	"raise-budget": {"plan-42", "--max-tokens", "10", "--reason", "more"},
	"codec-server": nil,
	"serve":        nil,
	"mcp":          nil,
	"healthcheck":  {"http://127.0.0.1:9/readyz"},
	"version":      nil,
	"gc":           nil,
	"fork":         {"plan-42", "--from", "s1"},
	"output":       {"outputs/plan-42/s1-tool-1.txt"},
}

// TestEveryCommandRefusesUnknownFlags checks that cobra refuses a flag a
// command does not take and --output a format it does not know, and that
// the CLI reports either as rejected input (exit 4) before it dials
// Temporal.
func TestEveryCommandRefusesUnknownFlags(t *testing.T) {
	for _, cmd := range CommandTree().Commands() {
		name := cmd.Name()
		args, ok := validArgs[name]
		if !ok {
			args = []string{"plan-42"}
		}
		t.Run(name, func(t *testing.T) {
			d, _, errOut := newTestDeps(t, "")
			code := run(context.Background(), d, append([]string{name, "--no-such-flag", "--address", nowhere(t)}, args...))
			assert.Equal(t, exitRejected, code, errOut.String())
			assert.Contains(t, errOut.String(), "unknown flag: --no-such-flag")

			d, _, errOut = newTestDeps(t, "")
			code = run(context.Background(), d, append([]string{name, "--output", "yaml", "--address", nowhere(t)}, args...))
			assert.Equal(t, exitRejected, code, errOut.String())
			assert.Contains(t, errOut.String(), `--output "yaml": want text or json`)
		})
	}
}

func TestCommandsRefuseExtraArguments(t *testing.T) {
	cases := [][]string{
		{"list", "plan-42"},
		{"show"},
		{"show", "plan-42", "plan-43"},
		{"select", "plan-42", "r1-o1", "r1-o2"},
		{"confirm-skip", "plan-42"},
		{"graph", "plan-42", "dot"},
	}
	for _, args := range cases {
		d, _, errOut := newTestDeps(t, "")
		code := run(context.Background(), d, append(args, "--address", nowhere(t)))
		assert.Equal(t, exitRejected, code, "%v: %s", args, errOut.String())
		assert.Contains(t, errOut.String(), "usage: planmode "+args[0], args)
	}
}

func TestEnumFlagsRefuseUnknownValues(t *testing.T) {
	cases := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"graph", "plan-42", "--format", "png"}, `--format "png": want mermaid or dot`},
		{[]string{"select", "plan-42", "--rank", "-1"}, "--rank must be 1 or more"},
		{[]string{"select", "plan-42", "--rank", "first"}, `invalid argument "first" for "--rank" flag`},
		{[]string{"start", "Fix the cart", "--priority", "urgent"}, `--priority "urgent"`},
		{[]string{"start", "Fix the cart", "--select", "sometimes"}, `selection.mode "sometimes": want manual or auto`},
		{[]string{"start", "Fix the cart", "--on-timeout", "wait"}, `selection.onTimeout "wait": want recommended or cancel`},
		{[]string{"start", "Fix the cart", "--mode", "fast"}, `execution.mode "fast": want complete, balanced or efficient`},
		{[]string{"start", "Fix the cart", "--on-confirm-timeout", "maybe"}, `execution.onConfirmTimeout "maybe": want approve or deny`},
		{[]string{"start", "Fix the cart", "--select-timeout", "soon"}, `invalid argument "soon" for "--select-timeout" flag`},
		{[]string{"confirm-skip", "plan-42", "skip-1", "--approve", "--deny"}, "exactly one of --approve or --deny"},
	}
	for _, tc := range cases {
		d, _, errOut := newTestDeps(t, "")
		code := run(context.Background(), d, append(tc.args, "--address", nowhere(t)))
		assert.Equal(t, exitRejected, code, "%v: %s", tc.args, errOut.String())
		assert.Contains(t, errOut.String(), tc.wantErr, tc.args)
	}
}
