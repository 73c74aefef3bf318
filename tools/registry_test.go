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

// TestFileToolSchemasSayWhatTheModelNeeds: read_file's and write_file's
// schemas ride on every agent turn that names them, so they are short,
// yet still strict and still say what the names do not: paths are
// relative, the size read_file takes (from the configuration), what
// offset counts and limit's default.
func TestFileToolSchemasSayWhatTheModelNeeds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxReadBytes = 64 << 10
	r := Builtin(cfg)
	specs := r.Specs([]string{"read_file", "write_file"})
	require.Len(t, specs, 2)
	read, write := specs[0], specs[1]
	assert.Equal(t, "Read a text file (relative path, at most 64 KiB).", read.Description)
	assert.Contains(t, write.Description, "relative path")
	assert.Contains(t, write.Description, "whole file", "content replaces the file, it is no patch")

	var schema struct {
		Properties           map[string]map[string]any `json:"properties"`
		Required             []string                  `json:"required"`
		AdditionalProperties *bool                     `json:"additionalProperties"`
	}
	require.NoError(t, json.Unmarshal(read.Parameters, &schema))
	require.NotNil(t, schema.AdditionalProperties)
	assert.False(t, *schema.AdditionalProperties, "arguments are decoded strictly")
	assert.Equal(t, []string{"path"}, schema.Required)
	assert.Equal(t, "lines to skip", schema.Properties["offset"]["description"])
	assert.EqualValues(t, 0, schema.Properties["offset"]["minimum"])
	assert.EqualValues(t, defaultReadLines, schema.Properties["limit"]["default"], "the default is the schema's")
	assert.EqualValues(t, 1, schema.Properties["limit"]["minimum"])

	schema.Required = nil
	require.NoError(t, json.Unmarshal(write.Parameters, &schema))
	assert.Equal(t, []string{"path", "content"}, schema.Required)

	for _, s := range specs {
		assert.Less(t, len(s.Description)+len(s.Parameters), 280, "%s: every turn that offers it sends it", s.Name)
	}
}
