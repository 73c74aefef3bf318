package testsuite

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// buildProgram builds the main package pkg of the module (with extra go
// build flags) into a temporary folder and returns the binary's path.
func buildProgram(t *testing.T, pkg string, flags ...string) string {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	args := append(append([]string{"build", "-o", bin}, flags...), pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, out)
	return bin
}

// TestGoClientProgramRuns builds the program docs/clients.md shows
// (starter/goclient, which a test there keeps equal to the doc) and runs
// it against a worker whose workspace root holds the demo workspace as
// shop, the folder the program names: it drives its plan to a completed result. The
// program waits for its pause signal to show in the progress query, so a
// refused pause would stop it at the timeout.
func TestGoClientProgramRuns(t *testing.T) {
	pw := startPlanWorker(t)
	require.NoError(t, devserver.CopyDemoWorkspace(filepath.Join(pw.root, "shop")))
	pc := planclient.New(pw.srv.Client, planclient.WithTaskQueue(pw.queue))
	bin := buildProgram(t, "./starter/goclient")
	id := "plan-goclient-" + pw.queue
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-address", pw.srv.Address(), "-namespace", pw.srv.Namespace,
		"-task-queue", pw.queue, "-id", id)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	options, err := pc.Options(ctx, id)
	require.NoError(t, err)
	require.NotEmpty(t, options.Options)
	for _, o := range options.Options {
		assert.Contains(t, string(out), o.ID+" "+o.Title, "the program lists every option")
	}
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	assert.Contains(t, string(out), "selected "+res.SelectedOptionID)
	assert.True(t, strings.HasSuffix(string(out), "completed "+strconv.Itoa(res.Metrics.StepsCompleted)+" steps completed\n"), "%s", out)
}

// TestVersionComesFromTheLinkFlags builds the CLI as a release would and
// asks it its version.
func TestVersionComesFromTheLinkFlags(t *testing.T) {
	bin := buildProgram(t, "./starter", "-ldflags", "-X github.com/planmode/planmode/internal/version.version=v9.8.7-e2e")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Regexp(t, `^planmode v9\.8\.7-e2e \(commit \S+, Temporal Go SDK v`, string(out))
}
