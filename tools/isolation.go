package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// SandboxMode says how run_command and run_tests isolate the programs
// they start (tools.sandbox).
type SandboxMode string

// Sandbox modes.
const (
	// SandboxAuto picks the best sandbox that works here: bubblewrap
	// today. With none working, commands are refused. "" means auto.
	SandboxAuto SandboxMode = "auto"
	// SandboxBwrap requires bubblewrap.
	SandboxBwrap SandboxMode = "bwrap"
	// SandboxNone runs commands as the worker with no isolation: they can
	// read what the worker reads, its secrets included. For machines that
	// are themselves a throw-away sandbox.
	SandboxNone SandboxMode = "none"
)

// SandboxModes lists the modes tools.sandbox accepts.
func SandboxModes() []SandboxMode { return []SandboxMode{SandboxAuto, SandboxBwrap, SandboxNone} }

// ErrNoSandbox is wrapped by the error of [DetectCommandSandbox], and so of
// run_command and run_tests, when commands must be isolated but no sandbox
// works on this machine. It is a fault of the worker's setup, not of the
// agent: the error says how to fix it.
var ErrNoSandbox = errors.New("no usable command sandbox")

// probeTimeout bounds the trial run of a sandbox.
const probeTimeout = 30 * time.Second

// CommandSandbox is how commands start: inside bubblewrap, or directly
// when the operator chose [SandboxNone]. [DetectCommandSandbox] returns one;
// the zero value runs nothing.
type CommandSandbox struct {
	mode    SandboxMode
	bwrap   string // bubblewrap's path
	version string // what bwrap --version says
	// noUserns is set when the sandbox forbids user namespaces inside it
	// (bubblewrap 0.8 and later, given a user namespace of its own): most
	// kernel privilege escalations need one.
	noUserns bool
	// ownPID is set when bubblewrap runs as the init of a PID namespace
	// of its own (see ownPIDNamespace), so that nothing outlives it.
	ownPID  bool
	network bool
	// mounts are bubblewrap's arguments for the system directories.
	mounts []string
	// readOnly are the operator's extra read-only paths; visible lists
	// every host directory the sandbox shows, for PATH.
	readOnly []string
	visible  []string
	// limits bound every command; via says how, cgroups where their
	// cgroups go (with via a cgroup) and noCgroup why there is none.
	limits   Limits
	via      limitMechanism
	cgroups  cgroups
	noCgroup string
	// tmpSize is set when bubblewrap can size the private /tmp (--size,
	// bubblewrap 0.8 and later).
	tmpSize bool
}

// DetectCommandSandbox checks cfg's sandbox settings and finds the sandbox
// commands will run in, trying it once (it runs true in it). With
// [SandboxNone] it returns the unisolated runner without trying anything.
// When isolation is asked for (auto or bwrap) and none works, the error
// wraps [ErrNoSandbox] and says what to install or allow. A worker calls it
// at start to log [CommandSandbox.String], and to warn loudly when
// [CommandSandbox.Isolated] is false.
func DetectCommandSandbox(cfg Config) (CommandSandbox, error) {
	if err := cfg.checkSandbox(); err != nil {
		return CommandSandbox{}, err
	}
	limited := detectLimits(cfg)
	if cfg.Sandbox == SandboxNone {
		limited.mode, limited.network = SandboxNone, true
		return limited, nil
	}
	s, err := detectBwrap(cfg, limited)
	if err != nil {
		return CommandSandbox{}, fmt.Errorf("%w (tools.sandbox is %s): %v. Install bubblewrap (Debian: apt-get install "+
			"bubblewrap) and allow unprivileged user namespaces (in a container: a seccomp profile that permits "+
			"them, and a /proc the container may mount), or set tools.sandbox to none to run commands unisolated, "+
			"with the worker's files, environment and network", ErrNoSandbox, cfg.sandboxMode(), err)
	}
	return s, nil
}

// detectLimits finds how commands will be limited: the cgroup hierarchy
// the worker may use, else rlimits and a watchdog.
func detectLimits(cfg Config) CommandSandbox {
	s := CommandSandbox{limits: cfg.Limits.withDefaults(), via: limitsByRlimits}
	if cfg.limitsVia == limitsByRlimits {
		s.noCgroup = "cgroups not tried"
		return s
	}
	c, err := detectCgroups()
	switch {
	case err != nil:
		s.noCgroup = err.Error()
	case c.version == 2:
		s.via, s.cgroups = limitsByCgroup2, c
	default:
		s.via, s.cgroups = limitsByCgroup1, c
	}
	return s
}

// detectBwrap finds bubblewrap and the strictest set of its options that
// works here, for the sandbox s of detectLimits.
func detectBwrap(cfg Config, s CommandSandbox) (CommandSandbox, error) {
	path := cfg.bwrap
	if path == "" {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			return CommandSandbox{}, errors.New("bwrap is not on the worker's PATH")
		}
		path = p
	} else if _, err := exec.LookPath(path); err != nil {
		return CommandSandbox{}, err
	}
	mounts, visible := systemMounts()
	readOnly := make([]string, 0, len(cfg.ReadOnlyPaths))
	for _, p := range cfg.ReadOnlyPaths {
		p = filepath.Clean(p)
		readOnly = append(readOnly, p)
		// PATH directories are compared once their symlinks are
		// resolved; bubblewrap shows a symlink's target at its place.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			visible = append(visible, real)
		}
	}
	s.mode, s.bwrap, s.network, s.mounts, s.readOnly, s.visible = SandboxBwrap, path, cfg.Network, mounts,
		readOnly, visible
	if out, err := exec.Command(path, "--version").Output(); err == nil {
		s.version = strings.TrimSpace(string(out))
	}
	if help, err := exec.Command(path, "--help").Output(); err == nil {
		s.tmpSize = strings.Contains(string(help), "--size")
	}
	// The strictest variant that works wins; each further one is weaker.
	var err error
	for _, v := range []struct{ ownPID, noUserns bool }{{true, true}, {true, false}, {false, true}, {false, false}} {
		try := s
		try.ownPID, try.noUserns = v.ownPID, v.noUserns
		if err = try.probe(); err == nil {
			return try, nil
		}
	}
	// The last, most lenient variant's failure says the most.
	return CommandSandbox{}, fmt.Errorf("bubblewrap (%s) cannot start a sandbox here: %v", path, err)
}

// probe runs true in the sandbox, in a fresh empty workspace.
func (s CommandSandbox) probe() error {
	tmp, err := os.MkdirTemp("", "planmode-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir, err := filepath.EvalSymlinks(tmp) // as NewSandbox resolves a root
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd, g, err := s.command(ctx, dir, s.env(Config{}, dir, os.LookupEnv), "true", nil)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	st, err := s.start(cmd, g)
	if err != nil {
		return err
	}
	err = <-st.done
	if rerr := st.release(); err == nil {
		err = rerr
	}
	if err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%v: %s", err, msg)
		}
		return err
	}
	return nil
}

// Mode returns SandboxBwrap or SandboxNone; "" for the zero value.
func (s CommandSandbox) Mode() SandboxMode { return s.mode }

// Isolated reports whether commands run isolated from the worker.
func (s CommandSandbox) Isolated() bool { return s.mode == SandboxBwrap }

// String describes the sandbox, and how it limits commands, for the
// worker's log.
func (s CommandSandbox) String() string {
	switch s.mode {
	case SandboxBwrap:
		name := s.version
		if name == "" {
			name = "bubblewrap"
		}
		net := "no network (loopback only)"
		if s.network {
			net = "the worker's network (tools.network)"
		}
		users := ""
		if s.noUserns {
			users = ", no user namespaces inside"
		}
		death := "they die with the worker (bubblewrap's init dies with its namespace)"
		if !s.ownPID {
			death = "they die with the worker, but for one started in the last moment before its death " +
				"(--die-with-parent only)"
		}
		ro := ""
		if len(s.readOnly) > 0 {
			ro = " and " + strings.Join(s.readOnly, ", ")
		}
		return fmt.Sprintf("%s (%s): commands get their own PID, mount, IPC and UTS namespaces, a private /proc "+
			"and /tmp, %s, the declared environment, read-only system directories%s, the workspace as the only "+
			"writable place%s; %s; %s", name, s.bwrap, net, ro, users, death, s.limitsString())
	case SandboxNone:
		return "none: commands run as the worker, NOT isolated: they can read every file and process environment " +
			"the worker can (its secrets included) and use its network (tools.sandbox is none); " + s.limitsString()
	}
	return "no sandbox detected: commands are refused"
}

// limitsString says how the sandbox enforces tools.limits.
func (s CommandSandbox) limitsString() string {
	l := s.limits
	var procs string
	switch s.via {
	case limitsByCgroup2, limitsByCgroup1:
		procs = fmt.Sprintf("%d processes and %s of memory per command, by a cgroup of its own under %s",
			l.Processes, byteSize(l.MemoryBytes), s.cgroups.pids)
		if s.cgroups.memory != s.cgroups.pids {
			procs += " and " + s.cgroups.memory
		}
	default:
		procs = fmt.Sprintf("%d processes per command, by a watchdog that counts them every %s, and %s of "+
			"address space per process (RLIMIT_AS): no cgroup (%s)", l.Processes, processPoll,
			byteSize(l.MemoryBytes), s.noCgroup)
	}
	tmp := fmt.Sprintf("a /tmp of %s", byteSize(l.TmpBytes))
	switch {
	case s.mode == SandboxNone:
		tmp = "the host's /tmp"
	case !s.tmpSize && s.cgroups.version != 0:
		tmp = "a /tmp bounded only by the memory limit (this bubblewrap has no --size)"
	case !s.tmpSize:
		tmp = "an UNBOUNDED /tmp held in memory (this bubblewrap has no --size, and no cgroup bounds memory)"
	}
	return fmt.Sprintf("limits (tools.limits) by %s: %s; %s of CPU time and files of %s at most per process "+
		"(rlimits); %s; the workspace may grow by %s per command up to %s, watched every %s or more",
		s.via, procs, l.CPUTime, byteSize(l.FileBytes), tmp, byteSize(l.GrowthBytes), byteSize(l.WorkspaceBytes),
		workspacePoll)
}

// checkSandbox reports a bad tools.sandbox, tools.env or
// tools.readOnlyPaths value.
func (c Config) checkSandbox() error {
	if !slices.Contains(SandboxModes(), c.sandboxMode()) {
		return fmt.Errorf("tools.sandbox %q: want auto, bwrap or none", c.Sandbox)
	}
	for _, kv := range c.Env {
		if name, _, _ := strings.Cut(kv, "="); name == "" || strings.ContainsRune(kv, 0) {
			return fmt.Errorf("tools.env %q: want KEY=value or KEY", kv)
		}
	}
	for _, p := range c.ReadOnlyPaths {
		if !strings.HasPrefix(p, "/") || p == "/" {
			return fmt.Errorf("tools.readOnlyPaths %q: want an absolute path other than /", p)
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("tools.readOnlyPaths %q: %w", p, err)
		}
	}
	return nil
}

// sandboxMode returns c.Sandbox with "" read as auto.
func (c Config) sandboxMode() SandboxMode {
	if c.Sandbox == "" {
		return SandboxAuto
	}
	return c.Sandbox
}

// sandboxCache detects the command sandbox on first use and keeps it once
// found; a failure is not kept, so that installing bubblewrap (or fixing
// the container) heals a running worker. The zero value is ready.
type sandboxCache struct {
	mu    sync.Mutex
	found *CommandSandbox
}

// get returns the sandbox for cfg, detecting it when none is kept; a nil
// cache detects every time.
func (c *sandboxCache) get(cfg Config) (CommandSandbox, error) {
	if c == nil {
		return DetectCommandSandbox(cfg)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.found != nil {
		return *c.found, nil
	}
	s, err := DetectCommandSandbox(cfg)
	if err != nil {
		return CommandSandbox{}, err
	}
	c.found = &s
	return s, nil
}
