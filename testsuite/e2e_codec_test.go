package testsuite

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/llm/reply"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/starter/cli"
)

// failingGoal, in a goal, makes markingBrain's plan fail.
const failingGoal = "from the campaign notes"

// markingBrain is the offline brain proposing one plan of one LLM step
// (a plan that builds and tests nothing runs in a second) whose answer
// and summary carry marker, so that a test can look for the plan's
// output by it. For a goal with failingGoal the plan also reads a missing
// file named after marker, and fails with marker in its error.
func markingBrain(marker string) offline.Brain {
	next := offline.NewOfflineBrain()
	return offline.BrainFunc(func(phase string, req openai.ChatCompletionRequest) offline.Reply {
		r := next.Reply(phase, req)
		switch phase {
		case llm.PhasePlan:
			steps := []reply.Step{{ID: "note", Title: "Describe the discount", Action: plan.ActionLLM,
				Config: reply.StepConfig{LLM: &plan.LLMConfig{Prompt: "Describe the discount"}}}}
			if strings.Contains(requestText(req), failingGoal) {
				steps = append(steps, reply.Step{ID: "notes", Title: "Read the notes", Action: plan.ActionTool,
					Config: reply.StepConfig{Tool: &reply.ToolConfig{Name: "read_file",
						Params: []byte(toolArgs(map[string]any{"path": "notes-" + marker + ".md"}))}}})
			}
			return offline.JSONReply(reply.Options{Options: []reply.Option{{
				Title: "Write it down", Description: "Describe the discount", Steps: steps}}})
		case llm.PhaseExecute:
			r.Content = "Step answer " + marker
		case llm.PhaseSummarize:
			r.Content += "\n\nReport " + marker + "\n"
		}
		return r
	})
}

// requestText is the text of every message of req.
func requestText(req openai.ChatCompletionRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}

// writeCodecKey writes a one-key file, k1 and 32 random bytes.
func writeCodecKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, codec.KeySize)
	_, err := rand.Read(k)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "codec.keys")
	require.NoError(t, os.WriteFile(path, []byte("k1:"+base64.StdEncoding.EncodeToString(k)+"\n"), 0o600))
	return path
}

// TestNoPlaintextInHistoryWithCodecKey runs a plan on a worker whose
// client encrypts with a codec key, started and awaited with the CLI (the
// key from PLANMODE_CODEC_KEYFILE), and reads its raw history through a
// client without the key: neither the goal nor the plan's output appears
// in any event or payload, memo and user metadata (the CLI's summary)
// included, and every payload is encrypted. The PlanGoal search
// attribute, which the server indexes in the clear, holds a keyed digest
// of the goal, not the goal. The codec server
// decodes a payload of that history, and `planmode result` prints the
// summary.
func TestNoPlaintextInHistoryWithCodecKey(t *testing.T) {
	isolate(t)
	keyFile := writeCodecKey(t)
	t.Setenv(config.EnvName(config.KeyCodecKeyFile), keyFile)
	tag := make([]byte, 6)
	_, err := rand.Read(tag)
	require.NoError(t, err)
	goalWord, marker := "Quokka"+hex.EncodeToString(tag), "output-"+hex.EncodeToString(tag)
	goal := "Add a percentage discount to the cart total for the " + goalWord + " campaign"

	pw := startCodecWorker(t, keyFile, marker)
	id := "plan-codec-" + pw.queue
	res := runWithCLI(t, pw, id, goal)
	require.Equal(t, 0, res.code, "%s%s", res.out, res.errOut)
	assert.Contains(t, res.out, marker, "the CLI with the key prints the summary")
	assert.Contains(t, res.out, "Status: "+string(signals.StatusCompleted))
	// A failed plan's Result travels in its failure's details, and the
	// steps' errors in the failure's message.
	failed := runWithCLI(t, pw, "plan-codec-failed-"+pw.queue, goal+" "+failingGoal)
	assert.Equal(t, 5, failed.code, "%s%s", failed.out, failed.errOut)
	assert.Contains(t, failed.out, "Status: "+string(signals.StatusFailed))
	assert.Contains(t, failed.out, "notes-"+marker, "the CLI with the key prints the failed step's error")

	ctx, cancel := testContext(t)
	defer cancel()
	runs := closedRuns(ctx, t, pw.srv.Client, pw.srv.Namespace, pw.queue, 2)
	texts := historyTexts(ctx, t, pw.srv.Client, runs, true)
	require.NotEmpty(t, texts)
	for _, needle := range []string{goalWord, marker} {
		assert.Empty(t, foundIn(texts, needle), "%s is plaintext in history", needle)
	}
	withAttrs := historyTexts(ctx, t, pw.srv.Client, runs, false)
	assert.Empty(t, foundIn(withAttrs, goalWord), "PlanGoal holds a digest, not the goal")
	assert.NotEmpty(t, foundIn(withAttrs, "hmac:"), "the scan reads the search attributes, where the digest is")

	started0 := startedEvent(ctx, t, pw.srv.Client, id)
	assertAllEncrypted(t, started0)
	plain := decodeWithCodecServer(t, started0.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0])
	assert.Contains(t, string(plain.GetData()), goalWord, "the codec server decodes the input")
	memo := decodeWithCodecServer(t, started0.GetWorkflowExecutionStartedEventAttributes().GetMemo().GetFields()[signals.MemoGoal])
	assert.Contains(t, string(memo.GetData()), goalWord, "the codec server decodes the memo")
}

// runWithCLI starts a plan for goal with `planmode start` (auto
// selection, one option) and returns what `planmode result` printed.
func runWithCLI(t *testing.T, pw *planWorker, id, goal string) cliResult {
	t.Helper()
	started := pw.cli(t, "start", goal, "--select", "auto", "--options", "1", "--id", id)
	require.Equal(t, 0, started.code, started.errOut)
	return pw.cli(t, "result", id)
}

// startCodecWorker starts an in-process worker whose client encrypts
// with the key file, as config.Config.ClientConfig builds it, on a
// queue of its own with the marking offline model.
func startCodecWorker(t *testing.T, keyFile, marker string) *planWorker {
	t.Helper()
	srv := StartDevServer(t)
	cfg := config.Config{
		Temporal: config.Temporal{Address: srv.Address(), Namespace: srv.Namespace},
		Codec:    config.Codec{KeyFile: keyFile},
	}
	opts, err := cfg.ClientConfig(nil)
	require.NoError(t, err)
	require.NotNil(t, opts.DataConverter, "the key file turns the codec on")
	c, err := client.Dial(opts)
	require.NoError(t, err)
	t.Cleanup(c.Close)

	pw := newPlanWorker(t, srv, offline.New(offline.WithBrain(markingBrain(marker))))
	pw.codec = cfg.Codec
	t.Cleanup(pw.llm.Close)
	pw.poll(t, c)
	return pw
}

// startedEvent returns the first event of run id's history, read raw.
func startedEvent(ctx context.Context, t *testing.T, c client.Client, id string) *historypb.HistoryEvent {
	t.Helper()
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	require.True(t, it.HasNext())
	ev, err := it.Next()
	require.NoError(t, err)
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, ev.GetEventType())
	return ev
}

// assertAllEncrypted checks that every payload of ev but its search
// attributes is encrypted: input, memo, user metadata (summary, details),
// header.
func assertAllEncrypted(t *testing.T, ev *historypb.HistoryEvent) {
	t.Helper()
	n := 0
	walkPayloads(ev.ProtoReflect(), "", func(path string, p *commonpb.Payload) {
		if strings.Contains(path, "search_attributes") {
			return
		}
		n++
		assert.Equal(t, codec.EncodingEncrypted, string(p.GetMetadata()[converter.MetadataEncoding]), "payload %s", path)
	})
	assert.GreaterOrEqual(t, n, 3, "input, memo and summary are payloads")
}

// decodeWithCodecServer runs `planmode codec-server` (with the key of
// PLANMODE_CODEC_KEYFILE) on a free loopback port, POSTs p to /decode
// and returns the decoded payload.
func decodeWithCodecServer(t *testing.T, p *commonpb.Payload) *commonpb.Payload {
	t.Helper()
	require.NotNil(t, p)
	pr, pwr := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(ctx, []string{"codec-server", "--listen", "127.0.0.1:0"}, strings.NewReader(""), pwr, io.Discard)
		pwr.Close()
	}()
	defer func() {
		cancel()
		assert.Equal(t, 0, <-code, "the codec server stops cleanly")
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "the codec server announces itself")
	url, ok := strings.CutPrefix(lines.Text(), "codec server listening on ")
	require.True(t, ok, lines.Text())
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{p}})
	require.NoError(t, err)
	resp, err := http.Post(url+"/decode", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(out))
	var decoded commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(out, &decoded))
	require.Len(t, decoded.GetPayloads(), 1)
	assert.NotEqual(t, codec.EncodingEncrypted, string(decoded.GetPayloads()[0].GetMetadata()[converter.MetadataEncoding]))
	return decoded.GetPayloads()[0]
}
