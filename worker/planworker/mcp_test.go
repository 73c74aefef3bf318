package planworker

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/tools"
)

func TestMCPConfigMapsEveryServer(t *testing.T) {
	c := config.MCP{AllowedURLs: []string{"https://h/"}, Servers: map[string]config.MCPServer{
		"web":    {URL: "https://h/mcp", HeadersFiles: map[string]string{"Authorization": "/run/secrets/h"}, Timeout: time.Second},
		"memory": {Command: "node", Args: []string{"index.js"}, EnvFiles: map[string]string{"T": "/run/secrets/t"}, Network: true, Tools: []string{"read_graph"}},
	}}
	got := MCPConfig(c, tools.CommandSandbox{}, nil)
	require.Len(t, got.Servers, 2)
	assert.Equal(t, "memory", got.Servers[0].Name, "sorted by name")
	assert.Equal(t, "node", got.Servers[0].Command)
	assert.True(t, got.Servers[0].Network)
	assert.Equal(t, []string{"read_graph"}, got.Servers[0].Tools)
	assert.Equal(t, "https://h/mcp", got.Servers[1].URL)
	assert.Equal(t, time.Second, got.Servers[1].Timeout)
	assert.Equal(t, config.DefaultMCPStateDir(), got.StateDir)
	assert.Equal(t, []string{"https://h/"}, got.AllowedURLs)
}

func TestStartMCPReportsAServerThatCannotStart(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	assert.Nil(t, StartMCP(context.Background(), config.Config{}, logger), "no servers, no manager")
	cfg := config.Config{MCP: config.MCP{Servers: map[string]config.MCPServer{"gone": {Command: "no-such-mcp-server"}}}}
	m := StartMCP(context.Background(), cfg, logger)
	t.Cleanup(func() { m.Close() })
	cat := m.Catalogue()
	assert.Empty(t, cat.Tools)
	require.Len(t, cat.Problems, 1)
	assert.Equal(t, "gone", cat.Problems[0].Server)
}
