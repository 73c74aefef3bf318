package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMCPServersFromTheFile(t *testing.T) {
	token := filepath.Join(t.TempDir(), "gh")
	require.NoError(t, os.WriteFile(token, []byte("ghp_secret\n"), 0o600))
	file := `
mcp:
  allowedURLs: ["https://mcp.example.com/"]
  servers:
    github:
      command: github-mcp-server
      args: [stdio]
      env: {GITHUB_TOOLSETS: issues}
      envFiles: {GITHUB_PERSONAL_ACCESS_TOKEN: ` + token + `}
      tools: [list_issues, create_issue]
      timeout: 30s
    tickets:
      url: https://mcp.example.com/tickets
      headersFiles: {Authorization: ` + token + `}
`
	c, err := load(t, loadCase{file: file, env: map[string]string{EnvName(KeyMCPAllowedURLs): "https://mcp.example.com/"}})
	require.NoError(t, err)
	gh := c.MCP.Servers["github"]
	assert.Equal(t, "github-mcp-server", gh.Command)
	assert.Equal(t, []string{"stdio"}, gh.Args)
	assert.Equal(t, map[string]string{"GITHUB_TOOLSETS": "issues"}, gh.Env, "names are upper-cased again")
	assert.Equal(t, map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": token}, gh.EnvFiles, "the file, never its content")
	assert.Equal(t, 30*time.Second, gh.Timeout)
	assert.Equal(t, []string{"list_issues", "create_issue"}, gh.Tools)
	assert.Equal(t, "https://mcp.example.com/tickets", c.MCP.Servers["tickets"].URL)
	var guarded []string
	for _, g := range c.GuardedPaths() {
		guarded = append(guarded, g.Key)
	}
	assert.Contains(t, guarded, "mcp.servers.github.envFiles.GITHUB_PERSONAL_ACCESS_TOKEN")
	assert.Contains(t, guarded, "mcp.servers.tickets.headersFiles.authorization")
}

func TestMCPAllowedURLsFromTheEnvironment(t *testing.T) {
	c, err := load(t, loadCase{env: map[string]string{"PLANMODE_MCP_ALLOWEDURLS": "https://a.example/,https://b.example/mcp"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"https://a.example/", "https://b.example/mcp"}, c.MCP.AllowedURLs)
}

func TestMCPValidationNamesTheKeyAndTheFix(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"neither", "mcp: {servers: {x: {timeout: 1s}}}", "mcp.servers.x: set command (a stdio server) or url"},
		{"both", "mcp: {servers: {x: {command: a, url: 'https://h/'}}}", "mcp.servers.x: set command or url, not both"},
		{"url not allowed", "mcp: {servers: {x: {url: 'https://h/mcp'}}}", "mcp.servers.x.url https://h/mcp is not under mcp.allowedURLs: add it"},
		{"headers on stdio", "mcp: {servers: {x: {command: a, headersFiles: {a: /f}}}}", "mcp.servers.x.headersFiles is for HTTP servers"},
		{"env on http", "mcp: {allowedURLs: ['https://h/'], servers: {x: {url: 'https://h/m', network: true}}}", "are for stdio servers"},
		{"missing file", "mcp: {servers: {x: {command: a, envFiles: {TOKEN: /no/such/file}}}}", "mcp.servers.x.envFiles.TOKEN: open /no/such/file"},
		{"not a file", "mcp: {servers: {x: {command: a, envFiles: {TOKEN: /dev/null}}}}", "mcp.servers.x.envFiles.TOKEN: secret file /dev/null is not a regular file"},
		{"bad name", "mcp: {servers: {'a b': {command: a}}}", "a server name is 1-32 lower-case letters"},
		{"relative path", "mcp: {servers: {x: {command: a, readOnlyPaths: [lib]}}}", `mcp.servers.x.readOnlyPaths: "lib" is not an absolute path`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, loadCase{file: tc.file})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestMCPEmptySecretFileIsRefused(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	_, err := load(t, loadCase{file: "mcp: {servers: {x: {command: a, envFiles: {TOKEN: " + empty + "}}}}"})
	require.ErrorContains(t, err, "mcp.servers.x.envFiles.TOKEN: secret file "+empty+" is empty")
}
