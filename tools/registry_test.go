package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noop(context.Context, Env, json.RawMessage) (Result, error) { return Result{Output: "ok"}, nil }

func TestRegistryRegister(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, r.Register(Tool{Spec: Spec{Name: "echo_back", Description: "d"}, Run: noop}))

	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{name: "duplicate", tool: Tool{Spec: Spec{Name: "echo_back"}, Run: noop}, want: "already registered"},
		{name: "empty name", tool: Tool{Run: noop}, want: "name must be"},
		{name: "bad name", tool: Tool{Spec: Spec{Name: "has space"}, Run: noop}, want: "name must be"},
		{name: "no run", tool: Tool{Spec: Spec{Name: "x"}}, want: "no Run function"},
		{name: "bad schema", tool: Tool{Spec: Spec{Name: "y", Parameters: json.RawMessage(`[1]`)}, Run: noop},
			want: "JSON schema object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Register(tt.tool)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	got, ok := r.Get("echo_back")
	require.True(t, ok)
	assert.JSONEq(t, string(emptySchema), string(got.Parameters), "empty parameters mean no arguments")
	assert.Equal(t, []string{"echo_back"}, r.Names())
}

func TestRegistryZeroValueUsable(t *testing.T) {
	var r Registry
	require.NoError(t, r.Register(Tool{Spec: Spec{Name: "a"}, Run: noop}))
	_, ok := r.Get("a")
	assert.True(t, ok)
}

func TestRegistrySpecs(t *testing.T) {
	r := Builtin(DefaultConfig())
	all := []string{"delete_file", "finish_plan", "list_files", "read_file", "run_command", "run_tests",
		"search_code", "search_files", "write_file"}
	assert.Equal(t, all, specNames(r.Specs(nil)))
	assert.Equal(t, all, specNames(r.Specs([]string{})))
	assert.Equal(t, []string{"write_file", "read_file"},
		specNames(r.Specs([]string{"write_file", "nope", "read_file", "write_file"})))
	assert.Equal(t, []string{"list_files", "read_file", "search_code", "search_files"}, specNames(r.ReadOnlySpecs()))
	assert.Equal(t, []string{"list_files", "read_file", "search_code", "search_files"}, r.ReadOnlyNames())
	for _, s := range r.Specs(nil) {
		var schema map[string]any
		require.NoError(t, json.Unmarshal(s.Parameters, &schema), s.Name)
		assert.Equal(t, "object", schema["type"], s.Name)
		assert.NotEmpty(t, s.Description, s.Name)
	}
}

func specNames(specs []Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func TestRegisterKeepsTheMCPPrefixAndBoundsSchemas(t *testing.T) {
	r := NewRegistry()
	run := func(context.Context, Env, json.RawMessage) (Result, error) { return Result{}, nil }
	err := r.Register(Tool{Spec: Spec{Name: "mcp__github__create_issue"}, Run: run})
	assert.ErrorContains(t, err, "names starting with mcp__ are kept for MCP servers' tools")
	big := json.RawMessage(`{"type":"object","description":"` + strings.Repeat("d", MaxSchemaBytes) + `"}`)
	err = r.Register(Tool{Spec: Spec{Name: "big", Parameters: big}, Run: run})
	assert.ErrorContains(t, err, "parameters schema is")
	assert.Empty(t, r.Names())
}
