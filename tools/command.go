package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// runner runs commands directly (never through a shell) in the workspace.
type runner struct {
	cfg Config
}

// run executes name with args in the root with the configured timeout,
// heartbeats and output cap. A non-zero exit, a timeout or a missing binary
// is a [*ToolError] that quotes the output's tail; cancellation of ctx
// kills the process group and returns ctx's error.
func (r runner) run(ctx context.Context, env Env, name string, args []string) (Result, error) {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, name, args...)
	if cmd.Err != nil {
		return Result{}, Failf("command %q not found: %v", name, cmd.Err)
	}
	cmd.Dir = env.Root.Root()
	cmd.Env = commandEnv(os.Environ(), r.cfg.Env)
	out := &capture{max: r.cfg.MaxOutputBytes, full: env.FullOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = waitDelay
	isolate(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, Failf("start %s: %v", name, err)
	}
	err := r.wait(env, cmd, name, start)
	text, cut := out.Output()
	res := Result{Output: text, Truncated: cut, CommandsRun: 1}
	if res.Output == "" {
		res.Output = "(no output)"
	}
	line := commandLine(name, args)
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("run %s: %w", line, ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return res, Failf("command %s timed out after %s; output ends with:\n%s", line, r.cfg.CommandTimeout, Tail(text, errorTail))
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return res, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return res, Failf("command %s exited with code %d; output ends with:\n%s", line, exit.ExitCode(), Tail(text, errorTail))
	}
	return res, fmt.Errorf("run %s: %w", line, err)
}

// wait waits for cmd, heartbeating while it runs.
func (r runner) wait(env Env, cmd *exec.Cmd, name string, start time.Time) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
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

// commandEnv is the worker's environment without planmode's own settings
// and anything named like a secret, plus extra.
func commandEnv(base, extra []string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !secretName(strings.ToUpper(name)) {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// secretName reports whether an upper-cased variable name looks like it
// holds a credential or planmode's configuration: PLANMODE_*, …_KEY, a
// name containing APIKEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL,
// or one with a word (between underscores) such as AUTH, PASS or PWD, so
// SSH_AUTH_SOCK (the use of the worker's SSH keys), NPM_CONFIG__AUTH and
// MYSQL_PWD go while GIT_AUTHOR_NAME and PWD stay.
func secretName(name string) bool {
	if strings.HasPrefix(name, "PLANMODE_") || strings.HasSuffix(name, "_KEY") {
		return true
	}
	for _, s := range []string{"APIKEY", "API_KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	words := strings.Split(name, "_")
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		switch w {
		case "AUTH", "PASS", "PWD", "PAT", "PRIVATE", "COOKIE", "CREDS", "PASSPHRASE":
			return true
		}
	}
	return false
}
