package testsuite

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/mcpserver"
)

// mcpToolNames are the 17 tools planmode's MCP server lists.
var mcpToolNames = []string{mcpserver.ToolStart, mcpserver.ToolStatus, mcpserver.ToolOptions,
	mcpserver.ToolSelect, mcpserver.ToolRefine, mcpserver.ToolAnswer, mcpserver.ToolConfirmSkip,
	mcpserver.ToolApprove, mcpserver.ToolDeny, mcpserver.ToolRaiseBudget, mcpserver.ToolEdit,
	mcpserver.ToolControl, mcpserver.ToolResult, mcpserver.ToolList, mcpserver.ToolApprovals,
	mcpserver.ToolRollback, mcpserver.ToolFork}

// nodePackage returns node and the folder of npm package pkg installed in
// .cache/mcp (make deps installs it), or skips the test saying which is
// missing.
func nodePackage(t *testing.T, pkg string) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is missing: the MCP clients of this test run on it (make deps installs them with npm)")
	}
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	dir = filepath.Join(root, memoryServerDir, "node_modules", pkg)
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Skip(pkg + " is not installed in " + memoryServerDir + ": run make deps")
	}
	return node, dir
}

// serveProcess is `planmode serve` running as a process of its own, which
// a test can kill as a machine's crash would.
type serveProcess struct {
	url    string
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{}
	err    error
}

// startServeProcess runs bin (the planmode binary) as `planmode serve` on
// a free loopback port with tokens, against Temporal at address,
// namespace and queue, and returns once it listens. It is killed, if still
// running, when t ends.
func startServeProcess(t *testing.T, bin, address, namespace, queue, tokens string) *serveProcess {
	t.Helper()
	sp := &serveProcess{out: &lockedBuffer{}, exited: make(chan struct{})}
	sp.cmd = exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--tokens-file", tokens,
		"--address", address, "--namespace", namespace, "--task-queue", queue)
	sp.cmd.Env, sp.cmd.Dir = workerEnv(t, nil), t.TempDir()
	sp.cmd.Stderr = sp.out
	sp.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := sp.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sp.cmd.Start())
	lines := bufio.NewScanner(stdout)
	announced := lines.Scan()
	go func() {
		_, _ = io.Copy(sp.out, stdout)
		sp.err = sp.cmd.Wait()
		close(sp.exited)
	}()
	t.Cleanup(sp.kill)
	require.True(t, announced, "serve announces itself: %s", sp.out)
	url, ok := strings.CutPrefix(lines.Text(), "planmode serve listening on ")
	require.True(t, ok, lines.Text())
	sp.url = url
	return sp
}

// kill SIGKILLs the serve process and waits for it to exit.
func (sp *serveProcess) kill() {
	select {
	case <-sp.exited:
		return
	default:
	}
	_ = syscall.Kill(-sp.cmd.Process.Pid, syscall.SIGKILL)
	<-sp.exited
}

// scriptEvent is one JSON line a client script printed: its event and
// the rest of the object, raw.
type scriptEvent struct {
	Event string `json:"event"`
	raw   []byte
}

// decode decodes the whole event into v.
func (e scriptEvent) decode(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(e.raw, v), string(e.raw))
}

// startScript runs node with args, and returns the JSON lines it prints,
// in order, and a channel that receives its exit (after the last line).
// Its standard error is logged with the test's output.
func startScript(t *testing.T, ctx context.Context, node string, args ...string) (<-chan scriptEvent, <-chan error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = t.TempDir()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	events, exited := make(chan scriptEvent, 1000), make(chan error, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		lines.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for lines.Scan() {
			var e scriptEvent
			e.raw = append([]byte(nil), lines.Bytes()...)
			if json.Unmarshal(e.raw, &e) != nil {
				e.Event = "unparsed"
			}
			events <- e
		}
		close(events)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's standard error:\n%s", filepath.Base(args[0]), stderr)
		}
	})
	return events, exited
}

// nextEvent returns the next line of events that is event, failing the
// test on any "error" line, the script's end or ctx's.
func nextEvent(t *testing.T, ctx context.Context, events <-chan scriptEvent, event string) scriptEvent {
	t.Helper()
	for {
		select {
		case e, ok := <-events:
			require.True(t, ok, "the script ended before %q", event)
			require.NotEqual(t, "error", e.Event, "the script failed: %s", e.raw)
			require.NotEqual(t, "unparsed", e.Event, "the script printed: %s", e.raw)
			if e.Event == event {
				return e
			}
		case <-ctx.Done():
			t.Fatalf("no %q from the script: %v", event, ctx.Err())
		}
	}
}

// httpStatus posts an initialize request to url with the given headers
// and returns the answer's status code.
func httpStatus(t *testing.T, ctx context.Context, url string, headers map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"e2e-guard","version":"0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}
