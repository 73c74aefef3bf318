package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/internal/devserver"
	"github.com/planmode/planmode/planclient"
)

// workerProc is bin/planmode-worker running as a child on a task queue of
// its own, with a sampler of its resident memory.
type workerProc struct {
	cmd    *exec.Cmd
	queue  string
	pc     *planclient.Client
	exited chan struct{}
	log    *os.File

	mu      sync.Mutex
	peakKiB int64
	stopped chan struct{}
}

// buildWorker builds bin/planmode-worker from the repository once.
func (r *rig) buildWorker(ctx context.Context) (string, error) {
	if r.workerBin != "" {
		return r.workerBin, nil
	}
	root, err := devserver.RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "planmode-worker")
	r.logf("building %s", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./worker")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./worker: %w: %s", err, out)
	}
	r.workerBin = bin
	return bin, nil
}

// startWorkerProc starts the worker binary with the offline model on a new
// task queue, settings (config keys) on top of the defaults, and waits
// until it says it started.
func (r *rig) startWorkerProc(ctx context.Context, name string, settings map[string]string) (*workerProc, error) {
	bin, err := r.buildWorker(ctx)
	if err != nil {
		return nil, err
	}
	queue := r.id("queue-" + name)
	dir := filepath.Join(r.dir, queue)
	root := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	all := map[string]string{config.KeyAddress: r.srv.Address(), config.KeyNamespace: r.srv.Namespace,
		config.KeyTaskQueue: queue, config.KeyWorkspaceRoot: root, config.KeyLLMOffline: "true",
		config.KeyOutputsDir: filepath.Join(dir, "outputs"), config.KeyLogLevel: "info"}
	for k, v := range settings {
		all[k] = v
	}
	log, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return nil, err
	}
	wp := &workerProc{cmd: exec.Command(bin), queue: queue, log: log, exited: make(chan struct{}), stopped: make(chan struct{}),
		pc: planclient.New(r.srv.Client, planclient.WithTaskQueue(queue), planclient.WithNamespace(r.srv.Namespace))}
	wp.cmd.Env, wp.cmd.Dir = workerEnv(dir, all), dir
	wp.cmd.Stdout, wp.cmd.Stderr = log, log
	wp.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := wp.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { _ = wp.cmd.Wait(); close(wp.exited) }()
	if err := wp.waitStarted(ctx, filepath.Join(dir, "worker.log")); err != nil {
		wp.stop()
		return nil, err
	}
	go wp.sample()
	return wp, nil
}

// workerEnv is this process's environment without PLANMODE_ variables,
// plus settings as PLANMODE_ variables and a cache folder under dir (where
// snapshots go).
func workerEnv(dir string, settings map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, config.EnvPrefix+"_") {
			env = append(env, kv)
		}
	}
	env = append(env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	for k, v := range settings {
		env = append(env, config.EnvName(k)+"="+v)
	}
	return env
}

// waitStarted waits for the worker's "worker started" log line.
func (wp *workerProc) waitStarted(ctx context.Context, logPath string) error {
	deadline := time.After(30 * time.Second)
	for {
		b, _ := os.ReadFile(logPath)
		if strings.Contains(string(b), "worker started") {
			return nil
		}
		select {
		case <-wp.exited:
			return fmt.Errorf("the worker exited: %s", b)
		case <-deadline:
			return fmt.Errorf("the worker did not start within 30s: %s", b)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sample records the peak VmRSS every 50 ms until the worker stops.
func (wp *workerProc) sample() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if kib, err := wp.status("VmRSS"); err == nil {
			wp.mu.Lock()
			wp.peakKiB = max(wp.peakKiB, kib)
			wp.mu.Unlock()
		}
		select {
		case <-wp.stopped:
			return
		case <-t.C:
		}
	}
}

// status reads a kB field (VmRSS, VmHWM) of the worker's /proc status.
func (wp *workerProc) status(field string) (int64, error) {
	return procField("/proc/"+strconv.Itoa(wp.cmd.Process.Pid)+"/status", field)
}

// rssMiB returns the worker's resident memory now, in MiB.
func (wp *workerProc) rssMiB() (float64, error) {
	kib, err := wp.status("VmRSS")
	return float64(kib) / 1024, err
}

// hwmMiB returns the kernel's high-water mark of the worker's resident
// memory, in MiB.
func (wp *workerProc) hwmMiB() (float64, error) {
	kib, err := wp.status("VmHWM")
	return float64(kib) / 1024, err
}

// resetPeak starts a new sampled peak from now.
func (wp *workerProc) resetPeak() {
	wp.mu.Lock()
	wp.peakKiB = 0
	wp.mu.Unlock()
}

// peakMiB returns the highest VmRSS sampled since the last resetPeak.
func (wp *workerProc) peakMiB() float64 {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	return float64(wp.peakKiB) / 1024
}

// stop asks the worker to stop and kills its process group if it has not
// within 20 seconds.
func (wp *workerProc) stop() {
	select {
	case <-wp.stopped:
		return
	default:
		close(wp.stopped)
	}
	defer wp.log.Close()
	_ = wp.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-wp.exited:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-wp.cmd.Process.Pid, syscall.SIGKILL)
		<-wp.exited
	}
}
