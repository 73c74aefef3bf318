package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/tools"
)

// serverModeEnv makes the test binary an MCP server on its standard input
// and output (see TestMain); the manager declares it in the server's
// environment, the only way a variable reaches it.
const serverModeEnv = "PLANMODE_MCP_TEST_SERVER"

// canaryEnv is set in the worker's (the test's) environment and must not
// reach a server.
const canaryEnv = "PLANMODE_MCP_CANARY"

func TestMain(m *testing.M) {
	switch os.Getenv(serverModeEnv) {
	case "":
		os.Exit(m.Run())
	case "garbage":
		fmt.Println("hello from a server that logs to stdout")
		time.Sleep(time.Minute)
	default:
		serveStdio()
	}
}

// serveStdio is the stdio test server: env lists its environment, dial
// tries a TCP address, crash exits mid-call.
func serveStdio() {
	s := testServer(func(s *sdk.Server) {
		textTool(s, "env", &sdk.ToolAnnotations{ReadOnlyHint: true}, func(map[string]any) *sdk.CallToolResult {
			return text(strings.Join(os.Environ(), "\n"))
		})
		textTool(s, "dial", nil, func(a map[string]any) *sdk.CallToolResult {
			c, err := net.DialTimeout("tcp", fmt.Sprint(a["q"]), 2*time.Second)
			if err != nil {
				return text("dial failed: " + err.Error())
			}
			c.Close()
			return text("connected")
		})
		textTool(s, "write", nil, func(a map[string]any) *sdk.CallToolResult {
			err := os.WriteFile(fmt.Sprint(a["q"]), []byte("x"), 0o644)
			return text(fmt.Sprint("write: ", err))
		})
		textTool(s, "crash", nil, func(map[string]any) *sdk.CallToolResult { os.Exit(3); return nil })
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// sandboxed returns the command sandbox, or skips when there is none.
func sandboxed(t *testing.T) tools.CommandSandbox {
	t.Helper()
	sbx, err := tools.DetectCommandSandbox(tools.DefaultConfig())
	if err != nil {
		t.Skipf("no command sandbox here: %v", err)
	}
	return sbx
}

// selfServer configures the test binary as a stdio server.
func selfServer(t *testing.T, mode string, network bool) Server {
	exe, err := os.Executable()
	require.NoError(t, err)
	return Server{Name: "self", Command: exe, Env: map[string]string{serverModeEnv: mode}, Network: network,
		ReadOnlyPaths: []string{filepath.Dir(exe)}, Timeout: 20 * time.Second}
}

func startSandboxed(t *testing.T, srv Server) (*Manager, string) {
	state := t.TempDir()
	m := Start(context.Background(), Config{Servers: []Server{srv}, StateDir: state, Sandbox: sandboxed(t),
		ConnectTimeout: 20 * time.Second})
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	return m, state
}

func TestStdioServerSeesOnlyItsDeclaredEnvironment(t *testing.T) {
	t.Setenv(canaryEnv, "worker-secret")
	secret := filepath.Join(t.TempDir(), "token")
	require.NoError(t, writeFile(secret, "from-a-file\n"))
	srv := selfServer(t, "serve", false)
	srv.EnvFiles = map[string]string{"API_TOKEN": secret}
	m, state := startSandboxed(t, srv)
	require.Empty(t, m.Catalogue().Problems)

	res, err := m.Call(context.Background(), "mcp__self__env", nil)
	require.NoError(t, err)
	assert.NotContains(t, res.Text, "worker-secret", "the worker's environment does not reach a server")
	assert.Contains(t, res.Text, "API_TOKEN=from-a-file")
	assert.Contains(t, res.Text, "HOME="+filepath.Join(state, "self"))

	res, err = m.Call(context.Background(), "mcp__self__write", json.RawMessage(`{"q":"`+filepath.Join(state, "self", "ok")+`"}`))
	require.NoError(t, err)
	assert.Equal(t, "write: <nil>", res.Text)
	assert.FileExists(t, filepath.Join(state, "self", "ok"), "a server writes its own folder")
	_, err = m.Call(context.Background(), "mcp__self__write", json.RawMessage(`{"q":"`+filepath.Join(state, "elsewhere")+`"}`))
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(state, "elsewhere"), "and nothing of the host beside it")
}

func TestStdioServerHasNoNetworkUnlessAllowed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	args := json.RawMessage(`{"q":"` + l.Addr().String() + `"}`)

	m, _ := startSandboxed(t, selfServer(t, "serve", false))
	res, err := m.Call(context.Background(), "mcp__self__dial", args)
	require.NoError(t, err)
	assert.Contains(t, res.Text, "dial failed", "the worker's loopback is another network's")

	m2, _ := startSandboxed(t, selfServer(t, "serve", true))
	res, err = m2.Call(context.Background(), "mcp__self__dial", args)
	require.NoError(t, err)
	assert.Equal(t, "connected", res.Text)
}

func TestStdioServerCrashMidCallRestartsOnNextCall(t *testing.T) {
	m, _ := startSandboxed(t, selfServer(t, "serve", false))
	before := m.Catalogue().Digest
	_, err := m.Call(context.Background(), "mcp__self__crash", nil)
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	res, err := m.Call(context.Background(), "mcp__self__env", nil)
	require.NoError(t, err, "the server is started again")
	assert.Contains(t, res.Text, "HOME=")
	assert.Equal(t, before, m.Catalogue().Digest)
}

func TestStdioServerPrintingGarbageIsReported(t *testing.T) {
	srv := selfServer(t, "garbage", false)
	m, _ := startSandboxed(t, srv)
	cat := m.Catalogue()
	assert.Empty(t, cat.Tools)
	require.Len(t, cat.Problems, 1)
	assert.Contains(t, cat.Problems[0].Reason, "connect")
}

func TestStdioServerThatCannotStartIsReported(t *testing.T) {
	m, _ := startSandboxed(t, Server{Name: "nope", Command: "no-such-mcp-server"})
	cat := m.Catalogue()
	require.Len(t, cat.Problems, 1)
	assert.Contains(t, cat.Problems[0].Reason, `"no-such-mcp-server" not found`)
}
