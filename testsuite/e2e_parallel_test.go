package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// partsGoal lists four independent parts: the offline model plans a
// survey and one step per part, all with dependsOn [], then a step that
// combines them.
const partsGoal = "Write short notes on: parsing; caching; logging; metrics"

// partsLatency is how long every offline reply waits, so that each
// step takes a while and steps that run together visibly overlap.
const partsLatency = 300 * time.Millisecond

// startLatencyWorker starts a worker on its own queue of the shared dev
// server, with the offline model answering after partsLatency and root
// as the workspace root.
func startLatencyWorker(t testing.TB, root string) *planclient.Client {
	t.Helper()
	srv := StartDevServer(t)
	queue := TaskQueue(t)
	model := offline.New(offline.WithLatency(partsLatency))
	t.Cleanup(model.Close)
	w := sdkworker.New(srv.Client, queue, sdkworker.Options{})
	registerOffline(w, model, root, t.TempDir(), config.Codec{})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return planclient.New(srv.Client, planclient.WithTaskQueue(queue))
}

// runParts runs partsGoal to the end with auto selection and the given
// parallelism, in a fresh workspace under root, and returns its result.
func runParts(ctx context.Context, t testing.TB, pc *planclient.Client, root, id string, parallelism int) signals.Result {
	t.Helper()
	ws := filepath.Join(root, id)
	require.NoError(t, os.MkdirAll(ws, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Notes\n"), 0o644))
	_, err := pc.Start(ctx, id, signals.StartRequest{Goal: partsGoal, Workspace: ws, OptionCount: 1,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto},
		Execution: signals.ExecutionPolicy{Parallelism: parallelism}})
	require.NoError(t, err)
	res, err := pc.Result(ctx, id)
	require.NoError(t, err)
	require.Equal(t, signals.StatusCompleted, res.Status, res.Error)
	require.NotNil(t, res.Plan)
	return res
}

// overlaps returns the pairs of steps of p whose run intervals overlap:
// one started before the other ended, each way.
func overlaps(t testing.TB, p *plan.Plan) []string {
	t.Helper()
	var out []string
	for i, a := range p.Steps {
		require.NotNil(t, a.StartedAt, "step %s ran", a.ID)
		require.NotNil(t, a.EndedAt, "step %s ended", a.ID)
		for _, b := range p.Steps[i+1:] {
			if a.StartedAt.Before(*b.EndedAt) && b.StartedAt.Before(*a.EndedAt) {
				out = append(out, a.ID+"|"+b.ID)
			}
		}
	}
	return out
}

// independentSteps counts the steps of p that depend on nothing.
func independentSteps(p *plan.Plan) int {
	n := 0
	for _, s := range p.Steps {
		if len(s.DependsOn) == 0 {
			n++
		}
	}
	return n
}

func TestIndependentStepsRunSideBySide(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pc := startLatencyWorker(t, root)
	ctx, cancel := testContext(t)
	defer cancel()

	wide := runParts(ctx, t, pc, root, "parallel-4-"+pc.TaskQueue(), 4)
	assert.GreaterOrEqual(t, independentSteps(wide.Plan), 4, "the plan has at least four independent steps")
	for _, s := range wide.Plan.Steps {
		assert.Equal(t, plan.StepCompleted, s.Status, "step %s %s", s.ID, s.Title)
	}
	assert.NotEmpty(t, overlaps(t, wide.Plan), "with parallelism 4 independent steps overlap")

	narrow := runParts(ctx, t, pc, root, "parallel-1-"+pc.TaskQueue(), 1)
	assert.Equal(t, len(wide.Plan.Steps), len(narrow.Plan.Steps), "the same plan")
	assert.Empty(t, overlaps(t, narrow.Plan), "with parallelism 1 no two steps overlap")
}

// BenchmarkIndependentSteps runs the four-part plan with the offline model
// answering after partsLatency, once with parallelism 1 and once with 4;
// ns/op is the wall time of one plan. The ratio of the two is the speed-up
// independent steps get. It needs the Temporal CLI and is skipped under
// -short; run it with a fixed count, e.g. -benchtime=3x.
func BenchmarkIndependentSteps(b *testing.B) {
	if testing.Short() {
		b.Skip("needs a Temporal dev server")
	}
	root := b.TempDir()
	pc := startLatencyWorker(b, root)
	for _, par := range []int{1, 4} {
		b.Run(fmt.Sprintf("parallelism=%d", par), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			seq := 0
			var steps int
			for b.Loop() {
				seq++
				res := runParts(ctx, b, pc, root, fmt.Sprintf("bench-par%d-%d-%s", par, seq, pc.TaskQueue()), par)
				steps = len(res.Plan.Steps)
			}
			b.ReportMetric(float64(steps), "steps/plan")
		})
	}
}
