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
	// Env holds extra environment variables ("KEY=value") for commands.
	// Commands inherit the worker's environment minus PLANMODE_* variables
	// and anything named like a secret (…KEY, …TOKEN, …SECRET, …PASSWORD).
	Env []string
}

// DefaultConfig returns the default configuration: no commands allowed,
// tests allowed, default limits.
func DefaultConfig() Config {
	return Config{AllowTests: true}.withDefaults()
}

// withDefaults fills zero durations and sizes.
func (c Config) withDefaults() Config {
	if c.CommandTimeout <= 0 {
		c.CommandTimeout = DefaultCommandTimeout
	}
	if c.MaxOutputBytes <= 0 {
		c.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if c.MaxReadBytes <= 0 {
		c.MaxReadBytes = DefaultMaxReadBytes
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
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
