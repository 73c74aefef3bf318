package planworker

import (
	"context"
	"fmt"
	"log/slog"
	"sort"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/mcp"
	"github.com/planmode/planmode/tools"
)

// StartMCP connects the MCP servers of mcp.servers, each within
// mcp.DefaultConnectTimeout and all at once, stdio servers in the command
// sandbox of tools.*, and logs which servers and tools are left out and
// why. It returns nil without servers. The caller sets the result as
// Activities.MCP and closes it when the worker stops.
func StartMCP(ctx context.Context, cfg config.Config, logger *slog.Logger) *mcp.Manager {
	if len(cfg.MCP.Servers) == 0 {
		return nil
	}
	sbx, err := tools.DetectCommandSandbox(ToolsConfig(cfg.Tools))
	if err != nil {
		logger.Error("no command sandbox: stdio MCP servers are refused", "error", err)
	}
	return mcp.Start(ctx, MCPConfig(cfg.MCP, sbx, logger))
}

// MCPConfig maps the configuration onto the manager's, servers sorted by
// name, stdio servers' folders under config.DefaultMCPStateDir.
func MCPConfig(c config.MCP, sbx tools.CommandSandbox, logger *slog.Logger) mcp.Config {
	names := make([]string, 0, len(c.Servers))
	for name := range c.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	out := mcp.Config{AllowedURLs: append([]string(nil), c.AllowedURLs...), StateDir: config.DefaultMCPStateDir(),
		Sandbox: sbx, Logger: logger}
	for _, name := range names {
		s := c.Servers[name]
		out.Servers = append(out.Servers, mcp.Server{Name: name, Command: s.Command, Args: s.Args, URL: s.URL,
			Env: s.Env, EnvFiles: s.EnvFiles, HeadersFiles: s.HeadersFiles, Tools: s.Tools, Network: s.Network,
			ReadOnlyPaths: s.ReadOnlyPaths, Timeout: s.Timeout})
	}
	return out
}

// AddTools registers a Go program's own tools beside the built-in ones of
// a (the built-in defaults when a has none), under the registry's rules:
// a name of 1-64 letters, digits, _ or -, not a built-in's nor starting
// with mcp__, a JSON Schema object of at most tools.MaxSchemaBytes, a Run
// function. Read-only tools are also offered while planning and
// reflecting. It stops at the first tool refused and says which and why.
func AddTools(a *Activities, ts ...tools.Tool) error {
	if a.Tools == nil {
		a.Tools = tools.Builtin(tools.DefaultConfig())
	}
	for _, t := range ts {
		if err := a.Tools.Register(t); err != nil {
			return fmt.Errorf("add tools: %w", err)
		}
	}
	return nil
}
