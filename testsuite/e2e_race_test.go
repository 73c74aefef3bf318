package testsuite

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// flipScript swaps two names in the workspace between a regular file and
// a symlink leading out, as fast as a perl loop can, for twenty seconds: x
// flips to the worker's own environment (/proc/self/environ, as the worker
// resolves it), y to a secret file outside the workspace. Each swap is a
// rename, so the name always exists. It prints how many rounds it made.
const flipScript = `my ($secret) = @ARGV; my $n = 0; my $end = time + 20;
sub put { my ($name, $text) = @_; open(my $f, ">", "$name.f") or die; print $f $text; close $f; rename("$name.f", $name) or die }
sub link_out { my ($name, $to) = @_; unlink("$name.l"); symlink($to, "$name.l") or die; rename("$name.l", $name) or die }
while (time < $end) { link_out("x", "/proc/self/environ"); link_out("y", $secret); put("x", "inside"); put("y", "inside"); $n++ }
print "flips: $n\n";`

// raceSteps is the attack as a plan handed in: the flipper, and beside it
// reads of x and writes of y, each retried when refused.
func raceSteps(secret string, reads, writes int) []plan.Step {
	tool := func(name string, params map[string]any) plan.StepConfig {
		return plan.StepConfig{Tool: &plan.ToolConfig{Name: name, Params: params}}
	}
	steps := []plan.Step{{ID: "flip", Title: "Flip x and y between files and links out", Action: plan.ActionTool,
		Config: tool("run_command", map[string]any{"command": "perl", "args": []string{"-e", flipScript, secret}})}}
	for i := range reads {
		steps = append(steps, plan.Step{ID: fmt.Sprintf("read-%d", i), Title: "Read x", Action: plan.ActionTool, MaxRetries: 2,
			RetryDelay: plan.Duration(10 * time.Millisecond), Config: tool("read_file", map[string]any{"path": "x"})})
	}
	for i := range writes {
		id := fmt.Sprintf("write-%d", i)
		steps = append(steps, plan.Step{ID: id, Title: "Write y", Action: plan.ActionTool, MaxRetries: 2,
			RetryDelay: plan.Duration(10 * time.Millisecond),
			Config:     tool("write_file", map[string]any{"path": "y", "content": "written by " + id})})
	}
	return steps
}

// TestFileToolsCannotBeRacedOut is the race on a real worker process: a
// command flips x and y between regular files and symlinks that lead to
// the worker's environment and to a secret outside the workspace, while
// parallel steps read x and write y. The file tools run in the worker,
// outside the sandbox; they must never follow the flip out. Afterwards no
// canary (from the worker's environment or the secret file) is in any
// history of the task queue, the worker's log or the kept outputs, the
// secret file is untouched and nothing new lies beside it; and the race
// was really run: reads saw both the inside file and a refusal.
func TestFileToolsCannotBeRacedOut(t *testing.T) {
	t.Parallel()
	tag := make([]byte, 8)
	_, err := rand.Read(tag)
	require.NoError(t, err)
	envCanary, fileCanary := "canary-env-"+hex.EncodeToString(tag), "canary-file-"+hex.EncodeToString(tag)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte(fileCanary), 0o600))
	before, err := os.Stat(secret)
	require.NoError(t, err)

	outputs := t.TempDir()
	srv, bin, env, queue, workspace := workerRig(t, map[string]string{
		config.KeyAllowCommands: "perl", config.KeyOutputsDir: outputs, config.KeyCommandTimeout: "2m"})
	env = append(env, "PLANMODE_RACE_CANARY="+envCanary)
	wp := startWorkerProcess(t, bin, env)
	require.Contains(t, wp.out.String(), "commands run isolated")

	ctx, cancel := testContext(t)
	defer cancel()
	pc := planclient.New(srv.Client, planclient.WithTaskQueue(queue))
	id := "plan-race-" + queue
	const reads, writes = 40, 20
	_, err = pc.Start(ctx, id, signals.StartRequest{Goal: "Race the file tools out of the workspace",
		Workspace: workspace, Plan: &signals.ExternalPlan{Steps: raceSteps(secret, reads, writes)},
		Execution: signals.ExecutionPolicy{Parallelism: 8, MaxSteps: reads + writes + 1}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err, "worker output:\n%s", wp.out)
	require.NotNil(t, res.Plan, res.Error)

	// Each read's last try either read the file inside or was refused:
	// nothing else came back.
	var inside, refused int
	for _, s := range res.Plan.Steps {
		switch {
		case s.Result == nil:
			t.Errorf("step %s did not run: %s", s.ID, s.Note)
		case s.ID == "flip":
			assert.Contains(t, s.Result.Output, "flips: ", "the flipper ran: %s", s.Result.Error)
			t.Logf("flipper: %s", strings.TrimSpace(s.Result.Output))
		case !strings.HasPrefix(s.ID, "read-"):
		case s.Result.Output == "inside":
			inside++
		case strings.Contains(s.Result.Error, "outside the workspace"):
			refused++
		default:
			t.Errorf("read %s returned neither the file inside nor a refusal: %d bytes starting %.24q, error %q",
				s.ID, len(s.Result.Output), s.Result.Output, s.Result.Error)
		}
	}
	t.Logf("reads (last try): %d read the file inside, %d were refused", inside, refused)
	assert.Equal(t, reads, inside+refused, "every read ran against the flipping name")

	got, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, fileCanary, string(got), "the secret outside is unchanged")
	after, err := os.Stat(secret)
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "the secret outside was not written")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing was created beside the secret")

	texts := historyTexts(ctx, t, srv.Client, closedRuns(ctx, t, srv.Client, srv.Namespace, queue, 1), false)
	require.NotEmpty(t, foundIn(texts, "Read x"), "decoded payloads are scanned")
	texts = append(texts, scanned{where: "worker log", text: wp.out.String()})
	texts = append(texts, fileTexts(t, outputs)...)
	for _, c := range []string{envCanary, fileCanary} {
		assert.Empty(t, foundIn(texts, c), "canary %s leaked", c)
	}
}
