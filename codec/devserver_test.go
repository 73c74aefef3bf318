package codec_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/testsuite"
)

// TestMain shares one dev server between the tests that need one.
func TestMain(m *testing.M) { testsuite.Main(m) }

const secretGoal = "Add JWT authentication to the billing service"

// TestTemporalCLIReadsHistoryThroughTheCodecServer starts a run through an
// encrypting client, checks that the server stores ciphertext, and reads
// the run back with `temporal workflow show --codec-endpoint` pointed at
// the codec server, as an operator would.
func TestTemporalCLIReadsHistoryThroughTheCodecServer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Temporal dev server; skipped with -short")
	}
	srv := testsuite.StartDevServer(t)
	ctx := context.Background()
	key := make([]byte, codec.KeySize)
	_, err := rand.Read(key)
	require.NoError(t, err)
	keys, err := codec.ParseKeys(strings.NewReader("k1:" + base64.StdEncoding.EncodeToString(key)))
	require.NoError(t, err)
	pc := codec.New(keys)

	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace,
		DataConverter: codec.NewDataConverter(pc)})
	require.NoError(t, err)
	defer c.Close()
	// No worker: the run waits on its task queue with its input in history.
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: testsuite.TaskQueue(t)},
		"Encrypted", map[string]string{"goal": secretGoal})
	require.NoError(t, err)
	defer func() { _ = c.TerminateWorkflow(ctx, run.GetID(), "", "test over") }()

	first := srv.Client.GetWorkflowHistory(ctx, run.GetID(), "", false, 0)
	event, err := first.Next()
	require.NoError(t, err)
	input := event.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	require.Len(t, input, 1)
	assert.Equal(t, codec.EncodingEncrypted, string(input[0].GetMetadata()[converter.MetadataEncoding]))
	assert.NotContains(t, string(input[0].GetData()), "JWT", "the server holds ciphertext only")

	codecSrv := httptest.NewServer(codec.NewHTTPHandler(pc, codec.ServerOptions{AuthToken: "tok"}))
	defer codecSrv.Close()
	show := func(extra ...string) string {
		bin, err := devserver.FindTemporal(ctx)
		require.NoError(t, err)
		args := append([]string{"workflow", "show", "--workflow-id", run.GetID(), "--address", srv.Address(),
			"--namespace", srv.Namespace, "--output", "json"}, extra...)
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(cctx, bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		return stdout.String()
	}

	// JSON output shows payload data base64-encoded, as history holds it.
	plain := base64.StdEncoding.EncodeToString([]byte(`{"goal":"` + secretGoal + `"}`))
	assert.NotContains(t, show(), plain, "without the codec the CLI sees ciphertext")
	assert.Contains(t, show("--codec-endpoint", codecSrv.URL, "--codec-auth", "Bearer tok"), plain)
}
