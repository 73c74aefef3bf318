package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/signals"
)

// TestStartRefusesOutOfBoundsRequestsBeforeDialling points the CLI at a
// port nobody listens on: a request beyond the bounds must be refused as
// rejected input (exit 4), never get as far as dialling (exit 2).
func TestStartRefusesOutOfBoundsRequestsBeforeDialling(t *testing.T) {
	port, err := devserver.FreePort()
	require.NoError(t, err)
	nowhere := "127.0.0.1:" + strconv.Itoa(port)
	requirement := strings.Repeat("r", signals.MaxTextBytes)
	var many []string
	for range signals.MaxListItems {
		many = append(many, "--requirement", requirement, "--constraint", requirement)
	}
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"goal of 1 MiB", []string{strings.Repeat("g", 1<<20)}, "goal is 1048576 bytes: at most 32768"},
		{"parallelism", []string{"g", "--parallelism", "1000000"}, "execution.parallelism 1000000 must be within 0..32"},
		{"max steps", []string{"g", "--max-steps", "5000"}, "execution.maxSteps 5000 must be within 0..1000"},
		{"max iterations", []string{"g", "--max-iterations", "1000"}, "execution.maxIterationsPerStep 1000 must be within 0..50"},
		{"selection wait", []string{"g", "--select-timeout", "8760h"}, "selection.timeout 8760h0m0s: at most 720h0m0s"},
		{"heartbeat", []string{"g", "--heartbeat-timeout", "1h"}, "execution.heartbeatTimeout 1h0m0s: at most 10m0s"},
		{"system prompt", []string{"g", "--system-prompt", strings.Repeat("s", signals.MaxPromptBytes+1)}, "systemPrompt is 16385 bytes"},
		{"whole request", append([]string{"g"}, many...), "at most 262144 (256 KiB)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, _, errOut := newTestDeps(t, "")
			got := run(context.Background(), d, append([]string{"start", "--address", nowhere}, tc.args...))
			assert.Equal(t, exitRejected, got, errOut.String())
			assert.Contains(t, errOut.String(), tc.wantErr)
			assert.NotContains(t, errOut.String(), "cannot reach Temporal")
			assert.Less(t, errOut.Len(), 4<<10, "the refusal does not echo the input")
		})
	}
}

func TestStartHistoryFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.json")
	msgs := `[` + strings.Repeat(`{"role":"user","content":"hi"},`, signals.MaxHistoryMessages) + `{"role":"user","content":"one more"}]`
	require.NoError(t, os.WriteFile(path, []byte(msgs), 0o600))
	_, err := parseStart(t, "--history", path).request("g")
	require.ErrorContains(t, err, "history has 51 messages: at most 50")
	assert.Equal(t, exitRejected, exitCode(err))
}

func TestStartMaxIterationsMapsOntoTheRequest(t *testing.T) {
	req, err := parseStart(t, "--max-iterations", "8").request("g")
	require.NoError(t, err)
	assert.Equal(t, 8, req.Request().Execution.MaxIterationsPerStep)
}
