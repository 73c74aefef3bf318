package tools

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// defaultPath is a command's PATH when none of the worker's PATH
// directories is visible in the sandbox.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// env returns the environment of a command run in root: PATH, HOME, LANG
// and what cfg.Env declares, later entries winning. lookup reads the
// worker's environment. Nothing else of it is passed on: it holds the
// worker's secrets, and a filter by name misses the ones named like any
// other variable (DATABASE_URL).
func (s CommandSandbox) env(cfg Config, root string, lookup func(string) (string, bool)) []string {
	vars := newEnvList()
	workerPath, _ := lookup("PATH")
	vars.set("PATH", s.safePath(workerPath, root))
	vars.set("HOME", root)
	if lang, ok := lookup("LANG"); ok && lang != "" {
		vars.set("LANG", lang)
	}
	if s.mode == SandboxBwrap {
		// Caches (Go's build cache, pip's…) and tools' own state (Go's
		// telemetry counters…) go to the private /tmp instead of HOME,
		// so they neither fill the workspace nor make steps that ran side
		// by side clash over files nobody asked for.
		vars.set("XDG_CACHE_HOME", "/tmp/.cache")
		vars.set("XDG_CONFIG_HOME", "/tmp/.config")
	}
	for _, kv := range cfg.Env {
		name, value, hasValue := strings.Cut(kv, "=")
		if !hasValue {
			var ok bool
			if value, ok = lookup(name); !ok {
				continue
			}
		}
		vars.set(name, value)
	}
	return vars.list()
}

// safePath keeps the directories of the worker's PATH a command may use:
// absolute ones outside the workspace (a relative one or one in the
// workspace would let a file the plan wrote pass for an allowed program)
// that the sandbox shows.
func (s CommandSandbox) safePath(workerPath, root string) string {
	var keep []string
	for _, dir := range filepath.SplitList(workerPath) {
		if !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || Within(root, real) || !s.sees(real) || slices.Contains(keep, dir) {
			continue
		}
		keep = append(keep, dir)
	}
	if len(keep) == 0 {
		return defaultPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// lookPath finds the program name in the directories of path the sandbox
// shows, as the sandbox will. A name with a slash is taken as it is,
// relative to the workspace root. It returns a [*ToolError] when there is
// no such program.
func (s CommandSandbox) lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !s.sees(filepath.Dir(real)) {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", Failf("command %q not found in the commands' PATH %s", name, path)
}

// command returns the command that runs name with args in the workspace
// root, with env as its whole environment, in the sandbox, behind the
// gate it returns (see gateScript): [CommandSandbox.start] starts it. A
// program that cannot be found is a [*ToolError].
func (s CommandSandbox) command(ctx context.Context, root string, env []string, name string, args []string) (*exec.Cmd, *gate, error) {
	if s.mode != SandboxBwrap && s.mode != SandboxNone {
		return nil, nil, errors.New("commands cannot run: no command sandbox was detected (tools.DetectCommandSandbox)")
	}
	if root == "/" {
		return nil, nil, errors.New("commands cannot run in the workspace /: the whole filesystem would be theirs")
	}
	prog, err := s.lookPath(name, envValue(env, "PATH"))
	if err != nil {
		return nil, nil, err
	}
	// Unsandboxed, the gate execs the program found, which sees that
	// path as its name.
	argv := []string{prog}
	if s.mode == SandboxBwrap {
		// bubblewrap itself runs with the command's environment, not
		// the worker's: its processes' environ shows in the sandbox's
		// /proc. Passing it this way, rather than with --setenv, also
		// keeps declared values off command lines, which every user of
		// the host can read.
		// The name, not prog: bubblewrap finds it in the same PATH and
		// the program sees the name it was called by.
		argv = append(append([]string{s.bwrap}, s.bwrapArgs(root)...), name)
	}
	g, err := newGate(s.mode == SandboxBwrap)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, gateShell, append(append([]string{"-c", gateScript, "planmode-gate"}, argv...), args...)...)
	cmd.ExtraFiles = g.child
	cmd.Dir = root
	cmd.Env = env
	isolate(cmd)
	if s.ownPID {
		ownPIDNamespace(cmd)
	}
	return cmd, g, nil
}

// envList is an environment being built: later values of a name replace
// earlier ones in place.
type envList struct {
	names  []string
	values map[string]string
}

func newEnvList() *envList { return &envList{values: map[string]string{}} }

func (e *envList) set(name, value string) {
	if _, ok := e.values[name]; !ok {
		e.names = append(e.names, name)
	}
	e.values[name] = value
}

func (e *envList) list() []string {
	out := make([]string, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, n+"="+e.values[n])
	}
	return out
}

// envValue returns the value of name in env ("KEY=value" entries).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}
