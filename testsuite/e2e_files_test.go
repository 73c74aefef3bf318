package testsuite

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/blobstore"
	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
	"github.com/planmode/planmode/worker/planworker"
	"github.com/planmode/planmode/workspace"
)

// filesRig is an in-process worker whose plans' files are kept in a store
// folder of the test's, which the test reads through files of its own.
type filesRig struct {
	*planWorker
	pc    *planclient.Client
	files *workspace.Files
	// store is the store folder, as workspace.store names it.
	store string
}

// startFilesRig starts a filesRig.
func startFilesRig(t *testing.T) *filesRig {
	t.Helper()
	srv := StartDevServer(t)
	pw := newPlanWorker(t, srv, offline.New())
	t.Cleanup(pw.llm.Close)
	store := t.TempDir()
	cfg := config.Config{
		Workspace: config.Workspace{Root: pw.root, Store: store},
		Tools:     config.Tools{AllowCommands: config.DefaultAllowCommands(), AllowTests: true},
		Outputs:   config.Outputs{Dir: t.TempDir()},
	}
	a := planworker.NewActivities(cfg, llm.Config{BaseURL: pw.llm.URL(), Model: offline.DefaultModel}, true)
	require.NotNil(t, a.Files, "a configured store gives the worker its files")
	a.Files.StateDir = t.TempDir()
	a.Workspace.SnapshotDir = t.TempDir()
	w := sdkworker.New(srv.Client, pw.queue, sdkworker.Options{})
	planworker.Register(w, a)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	reader, err := planworker.Files(config.Workspace{Store: store})
	require.NoError(t, err)
	reader.StateDir = t.TempDir()
	return &filesRig{planWorker: pw, pc: planclient.New(srv.Client, planclient.WithTaskQueue(pw.queue)), files: reader,
		store: store}
}

// contentOf brings a fresh folder to manifest id and returns its files'
// contents by path.
func (r *filesRig) contentOf(ctx context.Context, t *testing.T, id string) map[string]string {
	t.Helper()
	return manifestContent(ctx, t, r.files, id)
}

// manifestContent brings a fresh folder to manifest id through files and
// returns its files' contents by path.
func manifestContent(ctx context.Context, t *testing.T, files *workspace.Files, id string) map[string]string {
	t.Helper()
	m, err := files.Load(ctx, id)
	require.NoError(t, err, "manifest %s", id)
	dir := t.TempDir()
	_, err = files.Sync(ctx, workspace.SyncRequest{Dir: dir, Owner: m.Owner, ID: id})
	require.NoError(t, err)
	return folderContent(t, dir)
}

// folderContent returns the contents of the regular files under dir by
// slash-separated path.
func folderContent(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

// write is a tool step that writes content to path, after deps.
func write(id, path, content string, deps ...string) plan.Step {
	s := toolStep(id, plan.ToolWriteFile, map[string]any{"path": path, "content": content})
	s.DependsOn = deps
	return s
}

// runToEnd starts a plan of steps under id on its own folder, with
// parallelism, and returns its result.
func (r *filesRig) runToEnd(ctx context.Context, t *testing.T, id string, parallelism int, steps ...plan.Step) signals.Result {
	t.Helper()
	_, err := r.pc.Start(ctx, id, signals.StartRequest{Goal: "write some files", Plan: &signals.ExternalPlan{Steps: steps},
		Execution: signals.ExecutionPolicy{Parallelism: parallelism}})
	require.NoError(t, err)
	return r.awaitResult(ctx, t, id)
}

// awaitResult waits for plan id's result.
func (r *filesRig) awaitResult(ctx context.Context, t *testing.T, id string) signals.Result {
	t.Helper()
	res, err := r.pc.Result(ctx, id)
	if err != nil {
		var ok bool
		res, ok = signals.ResultFromError(err)
		require.True(t, ok, "plan %s ended without a result: %v", id, err)
	}
	return res
}

// stepResult returns the result of res's step id.
func stepResult(t *testing.T, res signals.Result, id string) plan.StepResult {
	t.Helper()
	require.NotNil(t, res.Plan)
	for _, s := range res.Plan.Steps {
		if s.ID == id {
			require.NotNil(t, s.Result, "step %s (%s) has a result", id, s.Status)
			return *s.Result
		}
	}
	require.Failf(t, "no such step", "step %s", id)
	return plan.StepResult{}
}

// threeWrites are the steps the rollback and fork tests run: a.txt
// written twice, then b.txt.
func threeWrites() []plan.Step {
	return []plan.Step{write("s1", "a.txt", "one"), write("s2", "a.txt", "two", "s1"), write("s3", "b.txt", "new", "s2")}
}

// TestEveryStepRecordsItsFilesAndRollbackReachesAnyOfThem runs three
// writes, checks the manifest each step's result names holds the files as
// that step left them, and rolls the ended plan back to the first step
// and to the last, from the CLI.
func TestEveryStepRecordsItsFilesAndRollbackReachesAnyOfThem(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-files-" + r.queue
	res := r.runToEnd(ctx, t, id, 1, threeWrites()...)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	want := map[string]map[string]string{
		"s1": {"a.txt": "one"}, "s2": {"a.txt": "two"}, "s3": {"a.txt": "two", "b.txt": "new"},
	}
	seen := map[string]bool{}
	for step, files := range want {
		m := stepResult(t, res, step).Manifest
		require.True(t, workspace.ValidManifestID(m), "step %s names its files: %q", step, m)
		assert.False(t, seen[m], "each step's files are a manifest of their own")
		seen[m] = true
		assert.Equal(t, files, r.contentOf(ctx, t, m), "the files step %s left", step)
	}
	assert.Equal(t, stepResult(t, res, "s3").Manifest, res.Manifest, "the result names the files the plan left")
	assert.Empty(t, r.contentOf(ctx, t, res.SnapshotID), "before execution the plan's own folder was empty")

	ws := filepath.Join(r.root, plan.DefaultWorkspace(id))
	got := r.cli(t, "rollback", id, "--to", "s1")
	require.Equal(t, 0, got.code, got.errOut)
	assert.Equal(t, map[string]string{"a.txt": "one"}, folderContent(t, ws), "back to the files s1 left: b.txt removed")

	got = r.cli(t, "rollback", id, "--to", "s3")
	assert.NotEqual(t, 0, got.code, "the folder no longer holds the files the plan left: refused without --force")
	assert.Contains(t, got.errOut, "b.txt", "the refusal names what changed since")
	got = r.cli(t, "rollback", id, "--to", "s3", "--force")
	require.Equal(t, 0, got.code, got.errOut)
	assert.Equal(t, want["s3"], folderContent(t, ws))

	got = r.cli(t, "rollback", id, "--to", "s9")
	assert.NotEqual(t, 0, got.code, "a step the plan does not have is refused")
	assert.Contains(t, got.errOut+got.out, "s9")
}

// TestForkGoesOnFromAStepsFiles forks an ended plan after its first step:
// the fork's files start as that step left them, it runs the steps that
// had not completed by then, and the parent is untouched. A fork from a
// step the plan does not have fails with the reason.
func TestForkGoesOnFromAStepsFiles(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	parent := "plan-parent-" + r.queue
	res := r.runToEnd(ctx, t, parent, 1, threeWrites()...)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	parentFiles := folderContent(t, filepath.Join(r.root, plan.DefaultWorkspace(parent)))

	child := "plan-child-" + r.queue
	got := r.cli(t, "fork", parent, "--from", "s1", "--id", child)
	require.Equal(t, 0, got.code, got.errOut)
	cres := r.awaitResult(ctx, t, child)
	require.Equal(t, signals.StatusCompleted, cres.Status, cres.Error)
	require.Equal(t, &signals.ForkRef{PlanID: parent, StepID: "s1"}, cres.ForkedFrom)
	var ids []string
	for _, s := range cres.Plan.Steps {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"s2", "s3"}, ids, "the fork runs what was not done after s1")
	assert.Equal(t, map[string]string{"a.txt": "one"}, r.contentOf(ctx, t, cres.SnapshotID), "the fork started from s1's files")
	assert.Equal(t, map[string]string{"a.txt": "two", "b.txt": "new"},
		folderContent(t, filepath.Join(r.root, plan.DefaultWorkspace(child))))
	assert.Equal(t, parentFiles, folderContent(t, filepath.Join(r.root, plan.DefaultWorkspace(parent))), "the parent is untouched")

	bad := "plan-bad-fork-" + r.queue
	_, err := r.pc.Start(ctx, bad, signals.StartRequest{Fork: &signals.ForkRef{PlanID: parent, StepID: "s9"}})
	require.NoError(t, err)
	bres := r.awaitResult(ctx, t, bad)
	assert.Equal(t, signals.StatusFailed, bres.Status)
	assert.Contains(t, bres.Error, "no step \"s9\"")
}

// TestStepsSideBySideMergeOrRunAgain runs four write steps, two at a
// time: s1 and s2 write different files and merge silently; s3 and s4
// both write z.txt from the same files: when s3, in place, writes first,
// s4's copy clashes when it ends and runs again on the plan's files.
// Both complete either way, a re-run's result records the clash with its
// first try's files, and the plan's files and folder hold the z.txt
// written last.
func TestStepsSideBySideMergeOrRunAgain(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-side-" + r.queue
	res := r.runToEnd(ctx, t, id, 2,
		write("s1", "x.txt", "x"), write("s2", "y.txt", "y"),
		write("s3", "z.txt", "from s3", "s1", "s2"), write("s4", "z.txt", "from s4", "s1", "s2"))
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.GreaterOrEqual(t, res.Metrics.MaxConcurrent, 2, "steps ran side by side")

	var reran string
	for _, s := range []string{"s3", "s4"} {
		sr := stepResult(t, res, s)
		assert.True(t, sr.Success, sr.Error)
		assert.Empty(t, sr.Conflicts)
		if len(sr.Clashes) == 0 {
			continue
		}
		reran = s
		require.Len(t, sr.Clashes, 1)
		c := sr.Clashes[0]
		assert.True(t, c.Rerun)
		assert.Equal(t, []string{"z.txt"}, c.Paths)
		assert.Equal(t, "from "+s, r.contentOf(ctx, t, c.Manifest)["z.txt"], "the first try's own files are kept")
		assert.Equal(t, 2, sr.Attempts)
	}
	last := "s3" // s4's copy ended first and merged at once: s3, in place, wrote over it
	if reran != "" {
		last = reran
	}
	final := r.contentOf(ctx, t, res.Manifest)
	assert.Equal(t, map[string]string{"x.txt": "x", "y.txt": "y", "z.txt": "from " + last}, final,
		"disjoint changes merged; the step that wrote last holds z.txt")
	assert.Equal(t, final, folderContent(t, filepath.Join(r.root, plan.DefaultWorkspace(id))))
}

// TestKeptOutputsAreReadFromTheStore has a step print more than the plan
// keeps of it: the whole output goes into the store, and `planmode
// output` reads it back by the reference the step's result names, with
// nothing but the store configured.
func TestKeptOutputsAreReadFromTheStore(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	long := strings.Repeat("a line of the output, over and over\n", 200)
	id := "plan-output-" + r.queue
	read := toolStep("s2", plan.ToolReadFile, map[string]any{"path": "long.txt"})
	read.DependsOn = []string{"s1"}
	res := r.runToEnd(ctx, t, id, 1, write("s1", "long.txt", long), read)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	ref := stepResult(t, res, "s2").OutputRef
	require.True(t, strings.HasPrefix(ref, outputs.SharedPrefix), "the whole output is in the store: %q", ref)

	t.Setenv(config.EnvName(config.KeyStore), r.store)
	got := r.cli(t, "output", ref)
	require.Equal(t, 0, got.code, got.errOut)
	assert.Contains(t, got.out, long)
}

// TestGCRemovesOnlyWhatNoPlanNeeds puts a blob no manifest names into the
// store, older than the grace period: `planmode gc --dry-run` names it
// and removes nothing, `planmode gc` removes it, and the files of a plan
// that ended within the retention stay whole.
func TestGCRemovesOnlyWhatNoPlanNeeds(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-gc-" + r.queue
	res := r.runToEnd(ctx, t, id, 1, threeWrites()...)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)

	orphan := "orphan content"
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(orphan)))
	key := "blobs/" + sum[:2] + "/" + sum
	require.NoError(t, r.files.Store.Put(ctx, key, strings.NewReader(orphan), int64(len(orphan))))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(r.store, filepath.FromSlash(key)), old, old))

	t.Setenv(config.EnvName(config.KeyStore), r.store)
	got := r.cli(t, "gc", "--dry-run", "--output", "json")
	require.Equal(t, 0, got.code, got.errOut)
	var dry struct {
		DryRun bool
		Blobs  int
		Pins   int
	}
	require.NoError(t, json.Unmarshal([]byte(got.out), &dry), got.out)
	assert.True(t, dry.DryRun)
	assert.Equal(t, 1, dry.Blobs, "the orphan, and only it: %s", got.out)
	assert.Zero(t, dry.Pins, "the plan ended within the retention: its pins stay")
	pins := 0
	require.NoError(t, r.files.Store.List(ctx, "pins/"+plan.DefaultWorkspace(id)+"/", func(blobstore.Info) error {
		pins++
		return nil
	}))
	assert.GreaterOrEqual(t, pins, 4, "every manifest the plan recorded is pinned under its workflow id")
	_, err := r.files.Store.Stat(ctx, key)
	require.NoError(t, err, "a dry run removes nothing")

	got = r.cli(t, "gc")
	require.Equal(t, 0, got.code, got.errOut)
	_, err = r.files.Store.Stat(ctx, key)
	assert.ErrorIs(t, err, blobstore.ErrNotFound, "gc removed the orphan")
	for _, s := range []string{"s1", "s2", "s3"} {
		assert.NotEmpty(t, r.contentOf(ctx, t, stepResult(t, res, s).Manifest), "step %s's files stay whole", s)
	}
}

// TestRollbackToAStepWhileOpenIsWhatTheNextStepsStartFrom holds a plan at
// a gated third step, rolls the open plan back to its first step from the
// CLI (the rollback update), then lets the third step run: it starts from
// the first step's files, and the plan ends with them plus its own change.
func TestRollbackToAStepWhileOpenIsWhatTheNextStepsStartFrom(t *testing.T) {
	isolate(t)
	r := startFilesRig(t)
	ctx, cancel := testContext(t)
	defer cancel()
	id := "plan-open-rollback-" + r.queue
	del := toolStep("s3", plan.ToolDeleteFile, map[string]any{"path": "gone.txt"})
	del.DependsOn = []string{"s2"}
	steps := []plan.Step{write("s0", "gone.txt", "x"), write("s1", "a.txt", "one", "s0"), write("s2", "b.txt", "two", "s1"), del}
	_, err := r.pc.Start(ctx, id, signals.StartRequest{Goal: "write, then delete under approval",
		Plan: &signals.ExternalPlan{Steps: steps}, Execution: signals.ExecutionPolicy{Parallelism: 1},
		Approval: signals.ApprovalPolicy{Rules: plan.ApprovalRules{{Match: plan.ToolDeleteFile, Action: plan.ApprovalAsk}}}})
	require.NoError(t, err)
	gated := awaitApproval(ctx, t, r.pc, id, "s3", 0)
	ws := filepath.Join(r.root, plan.DefaultWorkspace(id))
	require.Equal(t, map[string]string{"gone.txt": "x", "a.txt": "one", "b.txt": "two"}, folderContent(t, ws))

	got := r.cli(t, "rollback", id, "--to", "s1")
	require.Equal(t, 0, got.code, got.errOut)
	assert.Equal(t, map[string]string{"gone.txt": "x", "a.txt": "one"}, folderContent(t, ws), "as s1 left them")

	_, err = r.pc.Approve(ctx, id, signals.ApproveToolCallRequest{RequestID: gated.RequestID, Note: "go on"})
	require.NoError(t, err)
	res := r.awaitResult(ctx, t, id)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	want := map[string]string{"a.txt": "one"}
	assert.Equal(t, want, r.contentOf(ctx, t, res.Manifest), "s3 ran on the rolled-back files: b.txt stays gone")
	assert.Equal(t, want, folderContent(t, ws))
}
