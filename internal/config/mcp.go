package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/planmode/planmode/internal/secretfile"
)

// KeyMCPAllowedURLs is the key of MCP.AllowedURLs.
const KeyMCPAllowedURLs = "mcp.allowedURLs"

// MCP configures the worker's Model Context Protocol servers. Servers are
// set in the configuration file (mcp.servers.<name>.…): a map of them
// cannot be spelt in environment variables. mcp.allowedURLs can
// (PLANMODE_MCP_ALLOWEDURLS).
type MCP struct {
	// Servers by name. Viper folds keys to lower case: a server's name,
	// and so its tools' public names, are lower case; variable names of
	// env and envFiles are upper-cased when loaded.
	Servers map[string]MCPServer `mapstructure:"servers"`
	// AllowedURLs are the URLs, or prefixes ending in /, an HTTP server's
	// url and its redirects must match.
	AllowedURLs []string `mapstructure:"allowedURLs"`
}

// MCPServer is one server: a stdio program (command, args) run in the
// command sandbox, or a Streamable HTTP endpoint (url).
type MCPServer struct {
	Command string   `mapstructure:"command"`
	Args    []string `mapstructure:"args"`
	URL     string   `mapstructure:"url"`
	// Env sets literal variables of a stdio server: not for secrets.
	Env map[string]string `mapstructure:"env"`
	// EnvFiles sets variables of a stdio server to the content of files:
	// for secrets, which so never appear in the configuration.
	EnvFiles map[string]string `mapstructure:"envFiles"`
	// HeadersFiles sets headers of an HTTP server's requests to the
	// content of files (Authorization: "Bearer …").
	HeadersFiles map[string]string `mapstructure:"headersFiles"`
	// Tools is the allow-list of the server's tool names; empty offers
	// all.
	Tools []string `mapstructure:"tools"`
	// Network gives a stdio server the worker's network (default: none).
	Network bool `mapstructure:"network"`
	// ReadOnlyPaths are host paths a stdio server may read besides the
	// system directories: where its code is installed.
	ReadOnlyPaths []string `mapstructure:"readOnlyPaths"`
	// Timeout bounds one call (default 1m).
	Timeout time.Duration `mapstructure:"timeout"`
}

// DefaultMCPStateDir holds a folder per stdio server, its HOME and the only
// host folder it may write: planmode/mcp in the user's cache folder.
func DefaultMCPStateDir() string { return cacheDir("mcp") }

var (
	mcpServerName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)
	envVarName    = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
)

// normalize upper-cases the variable names viper folded to lower case.
func (m *MCP) normalize() {
	for name, s := range m.Servers {
		s.Env, s.EnvFiles = upperKeys(s.Env), upperKeys(s.EnvFiles)
		m.Servers[name] = s
	}
}

func upperKeys(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToUpper(k)] = v
	}
	return out
}

// problems lists what is wrong with the MCP settings, each naming its key
// and the fix.
func (m MCP) problems() []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for _, u := range m.AllowedURLs {
		if !isHTTPURL(u) {
			add("%s: %q is not an http(s) URL", KeyMCPAllowedURLs, u)
		}
	}
	for _, name := range sortedKeys(m.Servers) {
		s, key := m.Servers[name], "mcp.servers."+name
		if !mcpServerName.MatchString(name) {
			add("%s: a server name is 1-32 lower-case letters, digits, _ or -", key)
		}
		switch {
		case s.Command == "" && s.URL == "":
			add("%s: set command (a stdio server) or url (a Streamable HTTP server)", key)
		case s.Command != "" && s.URL != "":
			add("%s: set command or url, not both", key)
		case s.URL != "":
			errs = append(errs, m.httpProblems(key, s)...)
		default:
			errs = append(errs, stdioProblems(key, s)...)
		}
		if s.Timeout < 0 {
			add("%s.timeout must not be negative", key)
		}
	}
	return errs
}

// httpProblems checks an HTTP server's settings.
func (m MCP) httpProblems(key string, s MCPServer) []string {
	var errs []string
	if !isHTTPURL(s.URL) {
		errs = append(errs, fmt.Sprintf("%s.url %q is not an http(s) URL", key, s.URL))
	} else if !urlUnder(s.URL, m.AllowedURLs) {
		errs = append(errs, fmt.Sprintf("%s.url %s is not under %s: add it, or a prefix of it ending in /, there",
			key, s.URL, KeyMCPAllowedURLs))
	}
	if len(s.Args)+len(s.Env)+len(s.EnvFiles)+len(s.ReadOnlyPaths) > 0 || s.Network {
		errs = append(errs, fmt.Sprintf("%s: args, env, envFiles, network and readOnlyPaths are for stdio servers "+
			"(command); an HTTP server takes headersFiles", key))
	}
	return append(errs, fileProblems(key+".headersFiles", s.HeadersFiles)...)
}

// stdioProblems checks a stdio server's settings.
func stdioProblems(key string, s MCPServer) []string {
	var errs []string
	if len(s.HeadersFiles) > 0 {
		errs = append(errs, fmt.Sprintf("%s.headersFiles is for HTTP servers (url); a stdio server takes envFiles", key))
	}
	for _, name := range append(sortedKeys(s.Env), sortedKeys(s.EnvFiles)...) {
		if !envVarName.MatchString(name) {
			errs = append(errs, fmt.Sprintf("%s: %q is not an environment variable name", key, name))
		}
	}
	for _, p := range s.ReadOnlyPaths {
		if !filepath.IsAbs(p) {
			errs = append(errs, fmt.Sprintf("%s.readOnlyPaths: %q is not an absolute path", key, p))
		}
	}
	return append(errs, fileProblems(key+".envFiles", s.EnvFiles)...)
}

// fileProblems checks that the files of a name → file map are secret
// files the worker will read (secretfile.Read: not empty, not too large),
// without ever putting their content into a message.
func fileProblems(key string, files map[string]string) []string {
	var errs []string
	for _, name := range sortedKeys(files) {
		if _, err := secretfile.Read(files[name]); err != nil {
			errs = append(errs, fmt.Sprintf("%s.%s: %v", key, name, err))
		}
	}
	return errs
}

// urlUnder reports whether u is an entry of allowed or under one ending
// in /. The worker checks again with cleaned paths when it connects.
func urlUnder(u string, allowed []string) bool {
	for _, a := range allowed {
		if u == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(u, a)) {
			return true
		}
	}
	return false
}

// mcpGuardedPaths lists the servers' secret files, which the plans' file
// tools must not reach.
func (m MCP) guardedPaths() []GuardedPath {
	var out []GuardedPath
	for _, name := range sortedKeys(m.Servers) {
		s := m.Servers[name]
		for _, v := range sortedKeys(s.EnvFiles) {
			out = append(out, GuardedPath{Key: "mcp.servers." + name + ".envFiles." + v, Path: s.EnvFiles[v]})
		}
		for _, h := range sortedKeys(s.HeadersFiles) {
			out = append(out, GuardedPath{Key: "mcp.servers." + name + ".headersFiles." + h, Path: s.HeadersFiles[h]})
		}
	}
	return out
}
