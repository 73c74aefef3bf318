package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// activityCounter counts the activities a worker runs, whatever their
// type, so a benchmark can report activities per second exactly.
type activityCounter struct {
	interceptor.WorkerInterceptorBase
	n atomic.Int64
}

// InterceptActivity wraps each activity's inbound calls.
func (c *activityCounter) InterceptActivity(ctx context.Context,
	next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &countingActivity{counter: c}
	i.Next = next
	return i
}

// countingActivity counts one execution per ExecuteActivity call.
type countingActivity struct {
	interceptor.ActivityInboundInterceptorBase
	counter *activityCounter
}

// ExecuteActivity counts the execution and runs it.
func (a *countingActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	a.counter.n.Add(1)
	return a.Next.ExecuteActivity(ctx, in)
}

// benchFiles is a small workspace: a README and a Go source file with no
// module, so the offline model plans no test run and a plan's time is the
// product's overhead, not the Go toolchain's.
var benchFiles = map[string]string{
	"README.md": "# Cart\n\nA shopping cart with a total.\n",
	"cart.go": "package cart\n\n// Total sums the prices.\nfunc Total(prices []int) int {\n\tt := 0\n" +
		"\tfor _, p := range prices {\n\t\tt += p\n\t}\n\treturn t\n}\n",
}

// benchWorkspace writes benchFiles into a new folder under root, so that
// every plan starts from the same files whatever the last one changed.
func benchWorkspace(b *testing.B, root, name string) string {
	b.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("workspace: %v", err)
	}
	for file, content := range benchFiles {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			b.Fatalf("workspace: %v", err)
		}
	}
	return dir
}

// startBenchWorker starts a worker in this process on its own task queue
// of the shared dev server, wired as the planmode worker wires it, with
// the offline model on loopback and root as its workspace root. It returns a plan client on that queue
// and the worker's activity counter.
func startBenchWorker(b *testing.B, root string) (*planclient.Client, *activityCounter) {
	b.Helper()
	srv := StartDevServer(b)
	queue := TaskQueue(b)
	llm := offline.New()
	b.Cleanup(llm.Close)
	counter := &activityCounter{}
	w := sdkworker.New(srv.Client, queue, sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{counter}})
	registerOffline(w, llm, root, b.TempDir(), config.Codec{})
	if err := w.Start(); err != nil {
		b.Fatalf("worker: %v", err)
	}
	b.Cleanup(w.Stop)
	return planclient.New(srv.Client, planclient.WithTaskQueue(queue)), counter
}

// runBenchPlan starts one plan with auto selection and waits for its
// result, failing b unless every step completed.
func runBenchPlan(ctx context.Context, b *testing.B, pc *planclient.Client, id, workspace string) signals.Result {
	_, err := pc.Start(ctx, id, signals.StartRequest{
		Goal: "Add a percentage discount to the cart total", Workspace: workspace,
		Selection: signals.SelectionPolicy{Mode: signals.SelectAuto},
	})
	if err != nil {
		b.Fatalf("start: %v", err)
	}
	res, err := pc.Result(ctx, id)
	if err != nil {
		b.Fatalf("result: %v", err)
	}
	if res.Status != signals.StatusCompleted || res.Plan == nil {
		b.Fatalf("plan %s ended %s: %s", id, res.Status, res.Error)
	}
	for _, s := range res.Plan.Steps {
		if s.Status != plan.StepCompleted {
			b.Fatalf("plan %s: step %s is %s", id, s.ID, s.Status)
		}
	}
	return res
}

// BenchmarkPlanEndToEnd runs whole offline plans one after another on the
// shared dev server (tuned, see TunedArgs) with a worker in this process:
// clarify, options, auto selection, every step with its reflection, and
// the summary. ns/op is the wall time of one plan; activities/s is how
// many activities the worker completed per second of it, the per-activity
// overhead of Temporal round trips with no model time. Run it with a
// fixed count, e.g. -benchtime=10x; it needs the Temporal CLI and is
// skipped under -short.
func BenchmarkPlanEndToEnd(b *testing.B) {
	if testing.Short() {
		b.Skip("needs a Temporal dev server")
	}
	root := b.TempDir()
	pc, counter := startBenchWorker(b, root)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	warm := runBenchPlan(ctx, b, pc, "bench-warm-"+pc.TaskQueue(), benchWorkspace(b, root, "warm"))
	steps := len(warm.Plan.Steps)

	counter.n.Store(0)
	seq := 0
	for b.Loop() {
		seq++
		b.StopTimer()
		ws := benchWorkspace(b, root, fmt.Sprintf("ws-%d", seq))
		b.StartTimer()
		res := runBenchPlan(ctx, b, pc, fmt.Sprintf("bench-%d-%s", seq, pc.TaskQueue()), ws)
		if len(res.Plan.Steps) != steps {
			b.Fatalf("plan %d has %d steps, the first had %d", seq, len(res.Plan.Steps), steps)
		}
	}
	acts := float64(counter.n.Load())
	b.ReportMetric(float64(steps), "steps/plan")
	b.ReportMetric(acts/float64(seq), "activities/plan")
	b.ReportMetric(acts/b.Elapsed().Seconds(), "activities/s")
}
