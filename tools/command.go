package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Limits of a command run.
const (
	// errorTail is how much of the output a failure message quotes.
	errorTail = 2000
	// waitDelay bounds the wait for output pipes after the process ends.
	waitDelay = 2 * time.Second
)

// runner runs commands directly (never through a shell) in the workspace,
// inside the command sandbox.
type runner struct {
	cfg Config
	// sandbox keeps the detected sandbox; nil detects it on every run.
	sandbox *sandboxCache
}

// run executes name with args in the root with the configured timeout,
// heartbeats, output cap and limits, in the command sandbox. A non-zero
// exit, a timeout, a limit passed or a missing binary is a [*ToolError]
// that quotes the output's tail; cancellation of ctx kills the whole
// sandbox and returns ctx's error. Without a usable sandbox (and
// tools.sandbox not none) it returns an error wrapping [ErrNoSandbox]: a
// fault of the worker's setup.
func (r runner) run(ctx context.Context, env Env, name string, args []string) (Result, error) {
	// Detecting the sandbox (on the first run) and measuring the
	// workspace take a while: they heartbeat too.
	var sbx CommandSandbox
	var base int64
	err := r.beatWhile(env, name, func() (err error) {
		if sbx, err = r.sandbox.get(r.cfg); err != nil {
			return err
		}
		base, err = env.Root.measure()
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("run %s: %w", name, err)
	}
	cctx, cancel := context.WithTimeout(ctx, r.cfg.CommandTimeout)
	defer cancel()
	// The watchdog kills the command by cancelling lctx with the limit
	// it passed.
	lctx, stop := context.WithCancelCause(cctx)
	defer stop(nil)
	root := env.Root.Root()
	cmd, g, err := sbx.command(lctx, root, sbx.env(r.cfg, root, os.LookupEnv), name, args)
	if err != nil {
		return Result{}, err
	}
	out := &capture{max: r.cfg.MaxOutputBytes, full: env.FullOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = waitDelay
	start := time.Now()
	st, err := sbx.start(cmd, g)
	if err != nil {
		return Result{}, fmt.Errorf("run %s: %w", name, err)
	}
	// A cgroup that cannot be removed stays, empty, until the next
	// worker's start sweeps it away.
	defer st.release()
	w := sbx.watch(st, cmd.Process.Pid, env.Root, base, stop)
	err = r.wait(env, st.done, name, start)
	text, cut := out.Output()
	breach := w.finish(cmd.ProcessState, lctx.Err() != nil, err != nil, text)
	res := Result{Output: text, Truncated: cut, CommandsRun: 1}
	if res.Output == "" {
		res.Output = "(no output)"
	}
	return res, r.verdict(ctx, cctx, env, commandLine(name, args), text, base, breach, err)
}

// verdict returns the error of a command run as line, whose output is
// text: nil when it succeeded; the error of ctx when it was cancelled;
// else a [*ToolError] saying why it failed (the limit it passed, its
// timeout cctx, its exit) and quoting the output's tail. err is Wait's.
func (r runner) verdict(ctx, cctx context.Context, env Env, line, text string, base int64, breach *limitBreach, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("run %s: %w", line, ctx.Err())
	case breach != nil:
		msg := breach.Error()
		if breach.workspace {
			if now, err := env.Root.measure(); err == nil {
				msg += fmt.Sprintf("; the workspace now holds %s (%s before the command): what the command "+
					"left stays until the plan rolls it back or removes it", byteSize(now), byteSize(base))
			}
		}
		return Failf("command %s passed a limit: %s; output ends with:\n%s", line, msg, Tail(text, errorTail))
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return Failf("command %s timed out after %s; output ends with:\n%s", line, r.cfg.CommandTimeout, Tail(text, errorTail))
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return Failf("command %s exited with code %d; output ends with:\n%s", line, exit.ExitCode(), Tail(text, errorTail))
	}
	return fmt.Errorf("run %s: %w", line, err)
}

// startLocked starts cmd from a goroutine locked to its OS thread until
// cmd has ended, and returns a channel that receives Wait's result. The
// kernel's parent-death signal, which bubblewrap's --die-with-parent and
// Pdeathsig ask for, fires when the thread that started the child ends,
// not the process; Go ends a thread whenever a goroutine locked to it
// exits, so the starting thread is held for the command's whole life.
func startLocked(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}

// wait waits for the command's result on done, heartbeating meanwhile.
func (r runner) wait(env Env, done <-chan error, name string, start time.Time) error {
	tick := time.NewTicker(r.beatInterval(env))
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			env.Beat(name, time.Since(start).Round(time.Second).String())
		}
	}
}

// beatWhile runs f, heartbeating as a running command does until it
// returns, and returns its error.
func (r runner) beatWhile(env Env, name string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	env.Beat(name, "starting")
	tick := time.NewTicker(r.beatInterval(env))
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			env.Beat(name, "starting")
		}
	}
}

// beatInterval is how often a command run in env heartbeats: the
// configured interval, or env's cap when that is shorter.
func (r runner) beatInterval(env Env) time.Duration {
	if m := env.MaxHeartbeatInterval; m > 0 && m < r.cfg.HeartbeatInterval {
		return m
	}
	return r.cfg.HeartbeatInterval
}

// commandLine renders a command for messages, quoting arguments that need it.
func commandLine(name string, args []string) string {
	parts := []string{name}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$;&|<>()`*?") {
			a = fmt.Sprintf("%q", a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
