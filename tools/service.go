package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Service is a long-running program the worker talks to over its standard
// input and output, started in the command sandbox: an MCP server. It is
// isolated as a command is (own namespaces, the system directories
// read-only, the limits of tools.limits, killed with the worker) and sees
// one folder of its own instead of a workspace.
type Service struct {
	// Dir is the service's folder: its working directory and HOME, the
	// only host folder it may write. It must exist.
	Dir string
	// Program and Args are what runs; Program is looked up in the PATH the
	// service gets (the worker's PATH directories the sandbox shows).
	Program string
	Args    []string
	// Env declares the service's environment as KEY=value entries on top
	// of PATH and HOME. Nothing of the worker's own environment is passed.
	Env []string
	// Network gives the service the worker's network; without it it has
	// only a loopback interface of its own.
	Network bool
	// ReadOnlyPaths are absolute host paths the service may read at the
	// same place besides the system directories (its installed code).
	ReadOnlyPaths []string
	// Stderr receives what the service writes to its standard error; nil
	// discards it.
	Stderr io.Writer
}

// RunningService is a started [Service]. Stdin and Stdout are its standard
// input and output; Stop ends it.
type RunningService struct {
	Stdin   io.WriteCloser
	Stdout  io.ReadCloser
	st      *started
	cancel  context.CancelFunc
	exited  chan struct{}
	err     error // Wait's result, set before exited closes
	stop    sync.Once
	stopErr error
}

// StartService starts svc in the sandbox. It runs until [RunningService.Stop],
// until ctx ends, or until the worker dies (the sandbox dies with it). It
// returns a [*ToolError] when the program cannot be found, and an error
// wrapping [ErrNoSandbox] from a zero CommandSandbox.
func (s CommandSandbox) StartService(ctx context.Context, svc Service) (*RunningService, error) {
	if !filepath.IsAbs(svc.Dir) {
		return nil, fmt.Errorf("service folder %q is not absolute", svc.Dir)
	}
	for _, p := range svc.ReadOnlyPaths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("service read-only path %q is not absolute", p)
		}
	}
	if s.mode == "" {
		return nil, fmt.Errorf("%w: the sandbox was not detected", ErrNoSandbox)
	}
	// The service's own copy: its network and extra paths replace the
	// commands' (tools.network, tools.readOnlyPaths).
	own := s
	own.network = svc.Network || s.mode == SandboxNone
	own.readOnly = svc.ReadOnlyPaths
	own.visible = append(append([]string(nil), s.visible...), svc.ReadOnlyPaths...)
	workerPath, _ := os.LookupEnv("PATH")
	vars := newEnvList()
	vars.set("PATH", own.safePath(workerPath, svc.Dir))
	vars.set("HOME", svc.Dir)
	for _, kv := range svc.Env {
		name, value, _ := strings.Cut(kv, "=")
		vars.set(name, value)
	}
	sctx, cancel := context.WithCancel(ctx)
	cmd, g, err := own.command(sctx, svc.Dir, vars.list(), svc.Program, svc.Args)
	if err != nil {
		cancel()
		return nil, err
	}
	rs, err := own.startService(cmd, g, svc.Stderr)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", svc.Program, err)
	}
	rs.cancel = cancel
	return rs, nil
}

// startService wires the pipes of cmd and starts it behind its gate.
func (s CommandSandbox) startService(cmd *exec.Cmd, g *gate, stderr io.Writer) (*RunningService, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		g.close()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		g.close()
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if stderr == nil {
		stderr = io.Discard
	}
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	st, err := s.start(cmd, g)
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	rs := &RunningService{Stdin: inW, Stdout: outR, st: st, exited: make(chan struct{})}
	go func() {
		rs.err = <-st.done
		close(rs.exited)
	}()
	return rs, nil
}

// Exited is closed once the service has ended, for any reason.
func (r *RunningService) Exited() <-chan struct{} { return r.exited }

// Stop kills the service and everything it started, waits for it and
// releases its limits. It returns nil when the service had been stopped
// by it; calling it again does nothing.
func (r *RunningService) Stop() error {
	r.stop.Do(func() {
		r.Stdin.Close()
		r.cancel()
		<-r.exited
		r.Stdout.Close()
		r.stopErr = r.st.release()
		var exit *exec.ExitError
		if r.err != nil && !errors.As(r.err, &exit) && !errors.Is(r.err, context.Canceled) {
			r.stopErr = errors.Join(r.stopErr, r.err)
		}
	})
	return r.stopErr
}
