package testsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdkworker "go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/planmode/planmode/codec"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
)

// TestNoPlaintextGoalInVisibilityWithCodecKey runs two plans with
// distinctive goals and step titles on a worker that encrypts with a
// codec key, as the worker command wires it (client and activities from
// one configuration): one started by `planmode start --plan`, one by a
// bare SDK client with the codec, as `temporal workflow start
// --codec-endpoint` would (no memo, no summary). Neither the goal nor a
// step title appears in any event of any run's history, search
// attributes included, nor in what visibility returns (describe and
// list); PlanGoal holds a digest. `planmode list --goal` with the key
// finds both, whatever the spacing of the goal, and shows the goal it can
// decrypt or "(encrypted)"; without the key every goal is "(encrypted)".
func TestNoPlaintextGoalInVisibilityWithCodecKey(t *testing.T) {
	isolate(t)
	keyFile := writeCodecKey(t)
	t.Setenv(config.EnvName(config.KeyCodecKeyFile), keyFile)
	tag := make([]byte, 6)
	_, err := rand.Read(tag)
	require.NoError(t, err)
	word := hex.EncodeToString(tag)
	goalWord := "Wombat" + word
	goal := "Reconcile the " + goalWord + " ledger before the audit"
	titles := []string{"Tally the Numbat" + word + " receipts", "Draft the Quoll" + word + " memo"}
	external, planFile := twoStepPlan(t, titles...)

	pw, c := startEncryptingWorker(t, keyFile)
	ctx, cancel := testContext(t)
	defer cancel()
	byCLI, bySDK := "plan-secret-cli-"+pw.queue, "plan-secret-sdk-"+pw.queue
	started := pw.cli(t, "start", goal, "--plan", planFile, "--id", byCLI)
	require.Equal(t, 0, started.code, started.errOut)
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: bySDK, TaskQueue: pw.queue}, signals.WorkflowType,
		signals.StartRequest{Goal: goal, Plan: &external})
	require.NoError(t, err)
	pc := planclient.New(c, planclient.WithTaskQueue(pw.queue))
	for _, id := range []string{byCLI, bySDK} {
		res, err := pc.Result(ctx, id)
		require.NoError(t, err, id)
		require.Equal(t, signals.StatusCompleted, res.Status, "%s: %s", id, res.Error)
	}

	needles := append([]string{goalWord}, titles...)
	runs := closedRuns(ctx, t, pw.srv.Client, pw.srv.Namespace, pw.queue, 2)
	texts := historyTexts(ctx, t, pw.srv.Client, runs, false)
	require.NotEmpty(t, texts)
	texts = append(texts, visibilityTexts(ctx, t, pw, byCLI, bySDK)...)
	for _, needle := range needles {
		assert.Empty(t, foundIn(texts, needle), "%q is plaintext in history or visibility", needle)
	}
	for _, id := range []string{byCLI, bySDK} {
		assert.True(t, strings.HasPrefix(planGoal(ctx, t, pw, id), codec.DigestPrefix), "%s: PlanGoal holds a digest", id)
	}

	spaced := strings.ReplaceAll(goal, " ", "  \n")
	var found string
	require.Eventually(t, func() bool {
		res := pw.cli(t, "list", "--goal", spaced)
		found = res.out + res.errOut
		return res.code == 0 && strings.Contains(res.out, byCLI) && strings.Contains(res.out, bySDK)
	}, loadedWait, 100*time.Millisecond, "list --goal finds both plans: %s", found)
	assert.Contains(t, lineOf(found, byCLI), goalWord, "the memo's goal, decrypted with the key")
	assert.Contains(t, lineOf(found, bySDK), "(encrypted)", "a plan without a memo has only the digest")
	other := pw.cli(t, "list", "--goal", goal+" twice")
	require.Equal(t, 0, other.code, other.errOut)
	assert.NotContains(t, other.out, byCLI, "another goal, another digest")

	t.Setenv(config.EnvName(config.KeyCodecKeyFile), "")
	keyless := pw.cli(t, "list")
	require.Equal(t, 0, keyless.code, keyless.errOut)
	for _, id := range []string{byCLI, bySDK} {
		assert.Contains(t, lineOf(keyless.out, id), "(encrypted)", "without the key: %s", keyless.out)
	}
	assert.NotContains(t, keyless.out, goalWord)
}

// twoStepPlan is a plan of two llm steps with these titles, and a file
// that holds it for `planmode start --plan`.
func twoStepPlan(t *testing.T, titles ...string) (signals.ExternalPlan, string) {
	t.Helper()
	p := signals.ExternalPlan{Steps: []plan.Step{
		{ID: "s1", Title: titles[0], Action: plan.ActionLLM, Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Count them."}}},
		{ID: "s2", Title: titles[1], Action: plan.ActionLLM, DependsOn: []string{"s1"},
			Config: plan.StepConfig{LLM: &plan.LLMConfig{Prompt: "Write it."}}},
	}}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(file, b, 0o600))
	return p, file
}

// startEncryptingWorker starts an in-process worker wired from one
// configuration with codec.keyFile, as the worker command wires it: its
// client encrypts payloads and its activities digest the goal. It returns
// the worker and its client.
func startEncryptingWorker(t *testing.T, keyFile string) (*planWorker, client.Client) {
	t.Helper()
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	cfg := config.Config{
		Temporal:  config.Temporal{Address: srv.Address(), Namespace: srv.Namespace},
		Codec:     config.Codec{KeyFile: keyFile},
		Workspace: config.Workspace{Root: pw.root},
		Tools:     config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true},
	}
	opts, err := cfg.ClientConfig(nil)
	require.NoError(t, err)
	c, err := client.Dial(opts)
	require.NoError(t, err)
	t.Cleanup(c.Close)

	w := sdkworker.New(c, pw.queue, sdkworker.Options{})
	a := planworker.NewActivities(cfg, llm.Config{BaseURL: pw.llm.URL(), Model: offline.DefaultModel}, true)
	a.Workspace.SnapshotDir = t.TempDir()
	planworker.Register(w, a)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return pw, c
}

// visibilityTexts is what the server's visibility answers about ids, read
// without the key: each describe answer and each execution list's
// entries, as protojson and payload by payload (raw and decoded by the
// default data converter).
func visibilityTexts(ctx context.Context, t *testing.T, pw *planWorker, ids ...string) []scanned {
	t.Helper()
	var out []scanned
	for _, id := range ids {
		desc, err := pw.srv.Client.DescribeWorkflow(ctx, id, "")
		require.NoError(t, err)
		out = append(out, messageTexts(t, "describe "+id, desc.RawResponse)...)
	}
	resp, err := pw.srv.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: pw.srv.Namespace, Query: fmt.Sprintf("TaskQueue = '%s'", pw.queue)})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(resp.GetExecutions()), len(ids))
	return append(out, messageTexts(t, "list", resp)...)
}

// messageTexts is m as protojson and each of its payloads, raw and
// decoded.
func messageTexts(t *testing.T, where string, m proto.Message) []scanned {
	t.Helper()
	var out []scanned
	dc := converter.GetDefaultDataConverter()
	walkPayloads(m.ProtoReflect(), "", func(path string, p *commonpb.Payload) {
		text := string(p.GetData())
		var v any
		if dc.FromPayload(p, &v) == nil {
			if b, err := json.Marshal(v); err == nil {
				text += "\n" + string(b)
			}
		}
		out = append(out, scanned{where: where + " " + path, text: text})
	})
	b, err := protojson.Marshal(m)
	require.NoError(t, err)
	return append(out, scanned{where: where, text: string(b)})
}

// planGoal returns the PlanGoal search attribute of plan id.
func planGoal(ctx context.Context, t *testing.T, pw *planWorker, id string) string {
	t.Helper()
	desc, err := pw.srv.Client.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)
	p := desc.RawResponse.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[signals.GoalAttr.GetName()]
	require.NotNil(t, p, "%s has PlanGoal", id)
	var v string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &v))
	return v
}

// lineOf returns the line of out that names id.
func lineOf(out, id string) string {
	for line := range strings.SplitSeq(out, "\n") {
		if strings.Contains(line, id) {
			return line
		}
	}
	return ""
}

// TestListGoalWithoutCodecKeyMatchesWords runs a plan on a worker that
// does not encrypt: PlanGoal holds the goal, and `planmode list --goal`
// finds the plan by its whole goal or by one of its words, and not by a
// word it lacks.
func TestListGoalWithoutCodecKeyMatchesWords(t *testing.T) {
	isolate(t)
	t.Setenv(config.EnvName(config.KeyCodecKeyFile), "")
	pw := startPlanWorker(t)
	tag := make([]byte, 6)
	_, err := rand.Read(tag)
	require.NoError(t, err)
	goalWord := "Bilby" + hex.EncodeToString(tag)
	goal := "Add a percentage discount for the " + goalWord + " campaign"
	id := "plan-goal-plain-" + pw.queue
	_, planFile := twoStepPlan(t, "Tally the receipts", "Draft the memo")
	started := pw.cli(t, "start", goal, "--plan", planFile, "--id", id)
	require.Equal(t, 0, started.code, started.errOut)
	res := pw.cli(t, "result", id)
	require.Equal(t, 0, res.code, res.errOut)

	for _, q := range []string{goal, goalWord} {
		var out string
		require.Eventually(t, func() bool {
			r := pw.cli(t, "list", "--goal", q)
			out = r.out + r.errOut
			return r.code == 0 && strings.Contains(r.out, id)
		}, loadedWait, 100*time.Millisecond, "list --goal %q: %s", q, out)
		assert.Contains(t, lineOf(out, id), "Add a percentage discount")
	}
	ctx, cancel := testContext(t)
	defer cancel()
	assert.Equal(t, goal, planGoal(ctx, t, pw, id), "PlanGoal holds the goal")
	other := pw.cli(t, "list", "--goal", "Platypus"+hex.EncodeToString(tag))
	require.Equal(t, 0, other.code, other.errOut)
	assert.NotContains(t, other.out, id)
}
