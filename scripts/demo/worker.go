package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// workerProc is the planmode worker running as a child process.
type workerProc struct {
	cmd     *exec.Cmd
	logPath string
	log     *os.File
}

// startWorker builds the worker into cache and starts it against address
// with the offline model and wsRoot as its workspace root.
func startWorker(ctx context.Context, root, cache, address, wsRoot string) (*workerProc, error) {
	bin := filepath.Join(cache, "planmode-worker")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./worker")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build the worker: %w", err)
	}
	logPath := filepath.Join(cache, "worker.log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("worker log: %w", err)
	}
	cmd := exec.Command(bin, "--address", address, "--workspace-root", wsRoot, "--offline")
	cmd.Dir = cache
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "PLANMODE_CONFIG=")
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start the worker: %w", err)
	}
	return &workerProc{cmd: cmd, logPath: logPath, log: log}, nil
}

// stop asks the worker to stop gracefully and waits for it, killing it if
// it takes too long.
func (w *workerProc) stop() {
	defer w.log.Close()
	_ = w.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		_ = w.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
}
