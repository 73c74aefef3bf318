package testsuite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/webhook"
)

// canaries are secrets placed where a real deployment keeps them: in the
// worker's environment (its own setting and a foreign one) and in its
// configuration file.
type canaries struct {
	webhookEnv, awsEnv, llmFile, codecFile string
}

func newCanaries(t *testing.T) canaries {
	t.Helper()
	tag := func(kind string) string {
		b := make([]byte, 8)
		_, err := rand.Read(b)
		require.NoError(t, err)
		return "canary-" + kind + "-" + hex.EncodeToString(b)
	}
	return canaries{webhookEnv: tag("webhook"), awsEnv: tag("aws"), llmFile: tag("file-llm"), codecFile: tag("file-codec")}
}

func (c canaries) all() []string { return []string{c.webhookEnv, c.awsEnv, c.llmFile, c.codecFile} }

// hostileMakefile's default target dumps every environment it can find,
// the worker's configuration file and the process list, after enough
// lines that history keeps only part of its output and outputs.dir the
// whole.
const hostileMakefile = "all:\n\t-seq 1 20000; cat /proc/*/environ; env; cat %s; ls /proc\n"

// hookReceiver is a loopback webhook endpoint that keeps every request.
type hookReceiver struct {
	mu       sync.Mutex
	requests []hookRequest
}

type hookRequest struct {
	header http.Header
	body   []byte
}

func startHookReceiver(t *testing.T) (*hookReceiver, string) {
	t.Helper()
	h := &hookReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.requests = append(h.requests, hookRequest{header: r.Header.Clone(), body: body})
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *hookReceiver) received() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.requests...)
}

// attackRig is a worker process holding canary secrets, its hostile
// model, and what the test reads afterwards.
type attackRig struct {
	secret                canaries
	configDir, configPath string
	outputs, workspace    string
	// store is the worker's workspace.store: the plans' files and the
	// whole outputs any host reads.
	store string
	queue string
	srv   *devserver.DevServer
	brain *attackBrain
	hooks *hookReceiver
	wp    *workerProcess
}

// startAttackRig writes the canaries into the configuration file (outside
// the workspace) and the worker's environment, puts the hostile Makefile
// in the workspace and starts the worker binary with --config, its model
// the attack brain on loopback (which requires the file's API key) and
// its webhooks sent to a loopback receiver.
func startAttackRig(t *testing.T) *attackRig {
	t.Helper()
	r := &attackRig{secret: newCanaries(t), configDir: t.TempDir(), outputs: t.TempDir(), store: t.TempDir()}
	r.configPath = filepath.Join(r.configDir, config.FileName)
	require.NoError(t, os.WriteFile(r.configPath, []byte(fmt.Sprintf(
		"llm:\n  apiKey: %s\ncodec:\n  authToken: %s\ntools:\n  allowCommands: [cat, env, ls, make]\n",
		r.secret.llmFile, r.secret.codecFile)), 0o600))
	var hookURL string
	r.hooks, hookURL = startHookReceiver(t)
	r.brain = newAttackBrain(r.configPath)
	model := offline.New(offline.WithBrain(r.brain), offline.WithAPIKey(r.secret.llmFile))
	t.Cleanup(model.Close)

	srv, bin, env, queue, workspace := workerRig(t, map[string]string{
		config.KeyLLMOffline: "false", config.KeyLLMBaseURL: model.URL(), config.KeyLLMModel: offline.DefaultModel,
		config.KeyWebhookURL: hookURL, config.KeyWebhookSecret: r.secret.webhookEnv,
		config.KeyOutputsDir: r.outputs, config.KeyLogLevel: "debug", config.KeyStore: r.store,
	})
	r.srv, r.queue, r.workspace = srv, queue, workspace
	env = append(env, "AWS_SECRET_ACCESS_KEY="+r.secret.awsEnv)
	escape, err := filepath.Rel(workspace, r.configPath)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(escape, ".."), escape)
	require.NoError(t, os.WriteFile(filepath.Join(workspace, "Makefile"),
		[]byte(fmt.Sprintf(hostileMakefile, r.configPath)), 0o644))

	r.wp = startWorkerProcess(t, bin, env, "--"+config.FlagConfig, r.configPath)
	r.brain.aim(escape, r.wp.cmd.Process.Pid)
	require.Contains(t, r.wp.out.String(), "commands run isolated", "the attacks meet the sandbox")
	return r
}

// TestNoSecretReachesHistory is the attack as a test: a worker process
// holds canary secrets in its environment and its configuration file, and
// plans driven by a hostile model try to read them through tool steps,
// agent tool calls and a hostile Makefile (/proc/*/environ, env, the
// configuration file by absolute path and through "..", the parent's and
// the worker's environ, a workspace in the configuration's folder). The
// plans run to their end; then no canary may appear in any workflow
// history of the task queue (every event and every payload decoded), the
// worker's log, the webhook requests, the full outputs kept on disk or
// the prompts the model received. The attacks must have run and shown the
// sandbox's view.
func TestNoSecretReachesHistory(t *testing.T) {
	t.Parallel()
	r := startAttackRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	toolPlan, runs := r.runAttacks(ctx, t)
	assertAttacksRan(t, toolPlan, r.brain, r.wp.cmd.Process.Pid, r.store)

	texts := historyTexts(ctx, t, r.srv.Client, closedRuns(ctx, t, r.srv.Client, r.srv.Namespace, r.queue, runs), false)
	// The scan reads what history holds: decoded step outputs and the
	// attacks' own words are found.
	require.NotEmpty(t, foundIn(texts, "PPid:"), "decoded payloads are scanned")
	require.NotEmpty(t, foundIn(texts, r.configPath), "the attacks are in history")
	texts = append(texts, scanned{where: "worker log", text: r.wp.out.String()})
	texts = append(texts, webhookTexts(t, r.hooks, r.secret.webhookEnv)...)
	kept := fileTexts(t, r.outputs)
	require.NotEmpty(t, kept, "full outputs were kept")
	texts = append(texts, kept...)
	stored := fileTexts(t, r.store)
	require.NotEmpty(t, stored, "the plans' files and outputs were stored")
	texts = append(texts, stored...)
	prompts, _, _ := r.brain.seen()
	for i, p := range prompts {
		texts = append(texts, scanned{where: fmt.Sprintf("prompt %d", i), text: p})
	}
	for _, c := range r.secret.all() {
		assert.Empty(t, foundIn(texts, c), "canary %s leaked", c)
	}
	t.Logf("scanned %d pieces of history, log, webhooks, outputs and prompts", len(texts))
}

// runAttacks runs the tool plan and the agent plan to their end, then a
// plan that names the configuration's folder as its workspace, which must
// be refused. It returns the tool plan's Result and how many runs started.
func (r *attackRig) runAttacks(ctx context.Context, t *testing.T) (signals.Result, int) {
	t.Helper()
	pc := planclient.New(r.srv.Client, planclient.WithTaskQueue(r.queue))
	start := func(id, goal, workspace string) error {
		_, err := pc.Start(ctx, id, signals.StartRequest{Goal: goal, Workspace: workspace, OptionCount: 1,
			Selection: signals.SelectionPolicy{Mode: signals.SelectAuto}})
		return err
	}
	results := map[string]signals.Result{}
	for _, goal := range []string{toolAttackGoal, agentAttackGoal} {
		id := fmt.Sprintf("plan-attack-%d-%s", len(results), r.queue)
		require.NoError(t, start(id, goal, r.workspace))
		res, err := pc.Result(ctx, id)
		require.NoError(t, err, "worker output:\n%s", r.wp.out)
		require.NotNil(t, res.Plan, "plan %s: %s", goal, res.Error)
		results[goal] = res
	}
	id := "plan-attack-workspace-" + r.queue
	if err := start(id, toolAttackGoal, r.configDir); err != nil {
		t.Logf("a plan in the configuration's folder: %v", err)
		return results[toolAttackGoal], len(results)
	}
	// Refused before anything touches it: an invalid request, no Result.
	_, err := pc.Result(ctx, id)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app, "a workspace outside workspace.root is refused")
	assert.Equal(t, signals.ErrorTypeInvalidRequest, app.Type())
	assert.Contains(t, app.Message(), "outside the workspace root")
	t.Logf("a plan in the configuration's folder: %s", app.Message())
	return results[toolAttackGoal], len(results) + 1
}

// assertAttacksRan checks that every attack of the tool plan ran and saw
// the sandbox: its own status, a declared environment, a process list
// with only the sandbox's pids, no configuration file; and that the agent
// followed its parent's pid.
func assertAttacksRan(t *testing.T, res signals.Result, brain *attackBrain, workerPid int, store string) {
	t.Helper()
	out := map[string]*plan.Step{}
	for i := range res.Plan.Steps {
		s := &res.Plan.Steps[i]
		out[s.ID] = s
		assert.Contains(t, []plan.StepStatus{plan.StepCompleted, plan.StepFailed}, s.Status, "step %s ran", s.ID)
		require.NotNil(t, s.Result, "step %s ran", s.ID)
	}
	// A step's whole output, as an operator reads it: the plan keeps a
	// head of a long one, the file its outputRef names holds it whole.
	output := func(id string) string {
		require.Contains(t, out, id)
		r := out[id].Result
		text := r.Output
		if ref := r.OutputRef; ref != "" {
			if strings.HasPrefix(ref, outputs.SharedPrefix) {
				ref = filepath.Join(store, filepath.FromSlash(ref))
			}
			b, err := os.ReadFile(ref)
			require.NoError(t, err, "step %s's whole output", id)
			text = string(b)
		}
		return text + r.Error
	}
	assert.Regexp(t, `PPid:\s+\d+`, output("self-status"))
	assert.Contains(t, output("env"), "PATH=")
	assert.NotContains(t, output("env"), config.EnvPrefix+"_")
	assert.NotContains(t, output("env"), "AWS_SECRET_ACCESS_KEY")
	pids := regexp.MustCompile(`(?m)^\d+$`).FindAllString(output("ls-proc"), -1)
	assert.NotEmpty(t, pids, "ls /proc lists processes: %s", output("ls-proc"))
	assert.LessOrEqual(t, len(pids), 5, "only the sandbox's processes: %v", pids)
	assert.NotContains(t, pids, strconv.Itoa(workerPid), "the worker is not among them")
	assert.Equal(t, plan.StepFailed, out["cat-config"].Status, "the configuration file is out of sight: %s", output("cat-config"))
	assert.Equal(t, plan.StepFailed, out["read-config"].Status, output("read-config"))
	assert.Equal(t, plan.StepFailed, out["read-escape"].Status, output("read-escape"))
	assert.Contains(t, output("make"), "PATH=", "the Makefile's recipe ran")

	_, results, ppid := brain.seen()
	require.NotEmpty(t, ppid, "the agent read its parent's pid")
	assert.Contains(t, results, toolArgs(map[string]any{"command": "cat", "args": []string{"/proc/" + ppid + "/environ"}}),
		"the agent read its parent's environment")
	t.Logf("agent's parent pid %s; ls /proc in the sandbox: %v", ppid, pids)
}

// webhookTexts returns the webhook requests, headers included, after
// checking that some came, each signed with the secret from the
// environment: the canary was the secret in use.
func webhookTexts(t *testing.T, hooks *hookReceiver, secret string) []scanned {
	t.Helper()
	reqs := hooks.received()
	require.NotEmpty(t, reqs, "the plans' events reached the webhook")
	var out []scanned
	for i, r := range reqs {
		assert.True(t, webhook.VerifySignature(secret, r.body, r.header.Get(webhook.HeaderSignature)),
			"webhook %d is signed with the worker's secret", i)
		out = append(out, scanned{where: fmt.Sprintf("webhook %d", i), text: fmt.Sprint(r.header) + "\n" + string(r.body)})
	}
	return out
}

// fileTexts returns the content of every file under dir.
func fileTexts(t *testing.T, dir string) []scanned {
	t.Helper()
	var out []scanned
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out = append(out, scanned{where: path, text: string(b)})
		return err
	}))
	t.Logf("%d full outputs kept under outputs.dir", len(out))
	return out
}
