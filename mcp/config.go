package mcp

import (
	"log/slog"
	"time"

	"github.com/planmode/planmode/internal/urlallow"
	"github.com/planmode/planmode/tools"
)

// Defaults and bounds of [Config] and [Server].
const (
	// DefaultTimeout bounds one tool call when a server sets none.
	DefaultTimeout = time.Minute
	// DefaultConnectTimeout bounds starting a server, the protocol's
	// handshake and the listing of its tools.
	DefaultConnectTimeout = 30 * time.Second
	// MaxToolsPerServer is how many tools of one server are offered at
	// most; past it the rest (by name) are left out and reported: every
	// offered tool's schema is sent with every agent turn.
	MaxToolsPerServer = 200
	// MaxFrameBytes bounds one message of a server: a larger result
	// breaks the connection and the call's outcome is unknown.
	MaxFrameBytes = 16 << 20
)

// Server configures one MCP server (mcp.servers.<name>). Exactly one of
// Command and URL is set.
type Server struct {
	// Name is the server's name in the configuration and in its tools'
	// public names.
	Name string
	// Command and Args start a stdio server in the command sandbox.
	Command string
	Args    []string
	// URL is a Streamable HTTP server's endpoint; it must match
	// Config.AllowedURLs.
	URL string
	// Env sets variables of a stdio server's environment to literal
	// values: for what is not secret.
	Env map[string]string
	// EnvFiles sets variables to the content of files, read when the
	// server starts: for secrets, which so stay out of the configuration,
	// of history and of logs.
	EnvFiles map[string]string
	// HeadersFiles sets HTTP headers of every request to an HTTP server to
	// the content of files (Authorization: a file holding "Bearer …").
	HeadersFiles map[string]string
	// Tools is the allow-list of the server's real tool names; empty
	// offers all.
	Tools []string
	// Network gives a stdio server the worker's network.
	Network bool
	// ReadOnlyPaths are host paths a stdio server may read besides the
	// system directories: where its code is installed.
	ReadOnlyPaths []string
	// Timeout bounds one call; zero takes DefaultTimeout.
	Timeout time.Duration
}

// Config configures the [Manager].
type Config struct {
	Servers []Server
	// AllowedURLs are the URLs, or prefixes ending in /, that an HTTP
	// server's URL and every redirect it answers with must match.
	AllowedURLs []string
	// StateDir holds a folder per stdio server (StateDir/<name>), its
	// working directory and HOME and the only host folder it may write.
	StateDir string
	// Sandbox starts stdio servers; its zero value refuses them.
	Sandbox tools.CommandSandbox
	// ConnectTimeout bounds connecting one server; zero takes
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Logger receives what the servers write to their standard error, at
	// debug level, and the manager's own messages; nil discards them.
	Logger *slog.Logger
}

func (c Config) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (s Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// URLAllowed reports whether target matches an entry of allowed (see
// urlallow.Allowed, the check notify.allowedURLs uses too).
func URLAllowed(target string, allowed []string) bool { return urlallow.Allowed(target, allowed) }
