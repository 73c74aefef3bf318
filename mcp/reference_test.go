package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryServer is where scripts/install-deps.sh installs the reference
// server @modelcontextprotocol/server-memory, from the repository root.
const memoryServer = ".cache/mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js"

// TestReferenceMemoryServerInTheSandbox runs a published reference server
// over stdio in the command sandbox: it starts, lists its tools with their
// hints, and keeps what it is told in its own folder.
func TestReferenceMemoryServerInTheSandbox(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP reference server test needs it (CI has it)")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	script := filepath.Join(root, memoryServer)
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the MCP reference server is not installed: run scripts/install-deps.sh (make deps): %v", err)
	}
	sbx := sandboxed(t)
	state := t.TempDir()
	m := Start(context.Background(), Config{StateDir: state, Sandbox: sbx, ConnectTimeout: time.Minute,
		Servers: []Server{{Name: "memory", Command: node, Args: []string{script},
			Env:           map[string]string{"MEMORY_FILE_PATH": filepath.Join(state, "memory", "memory.jsonl")},
			ReadOnlyPaths: []string{filepath.Join(root, ".cache", "mcp")}, Timeout: 30 * time.Second}}})
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	cat := m.Catalogue()
	require.Empty(t, cat.Problems)
	read, ok := cat.Tool("mcp__memory__read_graph")
	require.True(t, ok, "tools: %v", cat.Tools)
	assert.True(t, read.ReadOnly)
	create, ok := cat.Tool("mcp__memory__create_entities")
	require.True(t, ok)
	assert.False(t, create.ReadOnly)

	ctx := context.Background()
	res, err := m.Call(ctx, create.Name, json.RawMessage(`{"entities":[{"name":"planmode","entityType":"project","observations":["runs plans durably"]}]}`))
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text)
	res, err = m.Call(ctx, read.Name, nil)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "runs plans durably")
	assert.FileExists(t, filepath.Join(state, "memory", "memory.jsonl"), "the server keeps its state in its own folder")
}
