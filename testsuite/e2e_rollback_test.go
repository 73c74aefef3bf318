package testsuite

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// readTree maps every file under dir (slash paths) to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return files
}

// TestCLIRollsBackAPlanAfterItEnded runs a plan to completion, rolls its
// workspace back through the CLI after the end, and checks the files are
// as before; then a file changed after the end makes a rollback refuse,
// naming it, until --force.
func TestCLIRollsBackAPlanAfterItEnded(t *testing.T) {
	isolate(t)
	pw := startPlanWorker(t)
	id := "plan-rollback-" + pw.queue
	before := readTree(t, pw.workspace)

	start := pw.cli(t, "start", "Add a percentage discount to the cart total", "--workspace", pw.workspace,
		"--select", "auto", "--mode", "efficient", "--id", id)
	require.Equal(t, 0, start.code, start.errOut)
	var res signals.Result
	pw.cliJSON(t, &res, "result", id)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotEmpty(t, res.SnapshotID, "the Result names the snapshot a later rollback restores")
	require.NotEqual(t, before, readTree(t, pw.workspace), "the plan changed the workspace")

	var rolled signals.RollbackPlanResult
	pw.cliJSON(t, &rolled, "rollback", id)
	assert.Equal(t, "Completed", rolled.PlanStatus)
	assert.Equal(t, res.SnapshotID, rolled.SnapshotID)
	assert.Empty(t, rolled.ChangedSince, "nothing changed after the end")
	assert.NotEmpty(t, append(rolled.Restored, rolled.Removed...), "the rollback reports what it restored")
	assert.Equal(t, before, readTree(t, pw.workspace), "the workspace is as before the plan")

	cart := filepath.Join(pw.workspace, "cart.go")
	require.NoError(t, os.WriteFile(cart, []byte("package cart // edited by hand\n"), 0o644))
	refused := pw.cli(t, "rollback", id)
	assert.Equal(t, 4, refused.code, "a rollback over later changes is refused: %s", refused.errOut)
	assert.Contains(t, refused.errOut, "cart.go", "the refusal names the file changed since")
	assert.Contains(t, refused.errOut, "--force")
	b, err := os.ReadFile(cart)
	require.NoError(t, err)
	assert.Contains(t, string(b), "edited by hand", "a refused rollback changes nothing")

	forced := pw.cli(t, "rollback", id, "--force")
	require.Equal(t, 0, forced.code, forced.errOut)
	assert.Contains(t, forced.out, "overwritten (changed after the end): ")
	assert.Contains(t, forced.out, "cart.go")
	assert.Equal(t, before, readTree(t, pw.workspace), "--force restores over the later change")
}
