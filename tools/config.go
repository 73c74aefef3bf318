package tools

import "time"

// Defaults of [Config].
const (
	DefaultCommandTimeout    = 2 * time.Minute
	DefaultMaxOutputBytes    = 64 << 10
	DefaultMaxReadBytes      = 1 << 20
	DefaultHeartbeatInterval = 5 * time.Second
)

// Config configures the built-in tools. Zero durations and sizes take their
// defaults; see [DefaultConfig] for AllowTests.
type Config struct {
	// AllowCommands lists the exact command names run_command may run
	// ("go", "make", "echo"). Empty allows none.
	AllowCommands []string
	// CommandTimeout bounds one command (default 2m).
	CommandTimeout time.Duration
	// MaxOutputBytes caps a tool's output; beyond it the output keeps its
	// head and tail and is marked truncated (default 64 KiB).
	MaxOutputBytes int
	// MaxReadBytes is the largest file read_file and search_code read
	// (default 1 MiB).
	MaxReadBytes int64
	// HeartbeatInterval is how often a running command heartbeats
	// (default 5s).
	HeartbeatInterval time.Duration
	// TestCommand overrides run_tests' detection, e.g. ["go", "test",
	// "./internal/..."].
	TestCommand []string
	// AllowTests lets run_tests run the detected or configured test command
	// even when its binary is not in AllowCommands. When false the binary
	// must be allowed. DefaultConfig sets it; the zero Config does not.
	AllowTests bool
	// Env declares the environment of commands (tools.env) on top of the
	// little they get without it: a PATH of the worker's PATH directories
	// the command can see, HOME (the workspace root), the worker's LANG
	// and, in bubblewrap, XDG_CACHE_HOME and XDG_CONFIG_HOME in the private /tmp.
	// "KEY=value" sets KEY; a bare "KEY" passes the worker's value of KEY
	// on, when it has one. Nothing else of the worker's environment reaches
	// a command: it holds the worker's secrets.
	Env []string
	// Sandbox chooses how commands are isolated (tools.sandbox): auto
	// (the zero value) and bwrap run them in bubblewrap and refuse to run
	// them when it does not work; none runs them as the worker, unisolated.
	Sandbox SandboxMode
	// Network gives commands the worker's network (tools.network). Without
	// it they have a network of their own with only a loopback interface.
	Network bool
	// ReadOnlyPaths are absolute host paths a sandboxed command may read,
	// at the same place, besides the system directories (tools.readOnlyPaths):
	// a toolchain under /opt, a prefilled Go module cache. A path inside
	// the workspace is as writable as the rest of it.
	ReadOnlyPaths []string
	// Limits bound what one command or write may consume (tools.limits).
	Limits Limits

	// bwrap, when set, is the bubblewrap binary to use instead of the
	// one on the worker's PATH (tests point it at a broken one).
	bwrap string
	// limitsVia, when set, forces how Limits are enforced instead of the
	// best way this host offers (tests try the fallback on a host with
	// cgroups).
	limitsVia limitMechanism
}

// DefaultConfig returns the default configuration: no commands allowed,
// tests allowed, default limits.
func DefaultConfig() Config {
	return Config{AllowTests: true}.withDefaults()
}

// withDefaults fills zero durations and sizes.
func (c Config) withDefaults() Config {
	c.CommandTimeout = orDefault(c.CommandTimeout, DefaultCommandTimeout)
	c.MaxOutputBytes = orDefault(c.MaxOutputBytes, DefaultMaxOutputBytes)
	c.MaxReadBytes = orDefault(c.MaxReadBytes, DefaultMaxReadBytes)
	c.HeartbeatInterval = orDefault(c.HeartbeatInterval, DefaultHeartbeatInterval)
	c.Limits = c.Limits.withDefaults()
	return c
}

// allowed reports whether name is in the allowlist.
func (c Config) allowed(name string) bool {
	for _, a := range c.AllowCommands {
		if a == name {
			return true
		}
	}
	return false
}
