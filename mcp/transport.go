package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planmode/planmode/internal/secretfile"
	"github.com/planmode/planmode/tools"
)

// stderrTail is how much of a server's standard error is kept to explain
// its failures.
const stderrTail = 2 << 10

// transport returns the transport to the server: a stdio server started
// in the sandbox, or the HTTP endpoint.
func (c *conn) transport() (sdk.Transport, error) {
	if c.m.dial != nil {
		return c.m.dial(c.cfg)
	}
	if c.cfg.URL != "" {
		return c.httpTransport()
	}
	return c.stdioTransport()
}

// stdioTransport starts the server in the command sandbox, in its own
// folder under the state folder, with its declared environment.
func (c *conn) stdioTransport() (sdk.Transport, error) {
	if c.m.cfg.StateDir == "" {
		return nil, errors.New("no state folder for stdio servers is configured")
	}
	dir := filepath.Join(c.m.cfg.StateDir, c.cfg.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server folder: %w", err)
	}
	env, err := c.environment()
	if err != nil {
		return nil, err
	}
	c.stderr = &tail{}
	proc, err := c.m.cfg.Sandbox.StartService(c.m.ctx, tools.Service{Dir: dir, Program: c.cfg.Command,
		Args: c.cfg.Args, Env: env, Network: c.cfg.Network, ReadOnlyPaths: c.cfg.ReadOnlyPaths, Stderr: c.stderr})
	if err != nil {
		return nil, err
	}
	c.proc = proc
	return &sdk.IOTransport{Reader: proc.Stdout, Writer: proc.Stdin, MaxLineLength: MaxFrameBytes}, nil
}

// environment returns the declared variables: literals, then those read
// from files. A file's content never appears in an error.
func (c *conn) environment() ([]string, error) {
	var env []string
	for _, name := range sortedKeys(c.cfg.Env) {
		env = append(env, name+"="+c.cfg.Env[name])
	}
	for _, name := range sortedKeys(c.cfg.EnvFiles) {
		v, err := secretfile.Read(c.cfg.EnvFiles[name])
		if err != nil {
			return nil, fmt.Errorf("envFiles.%s: %w", name, err)
		}
		env = append(env, name+"="+v)
	}
	return env, nil
}

// httpTransport dials a Streamable HTTP server whose URL is allowed, with
// the headers of its files, refusing redirects to URLs not allowed.
func (c *conn) httpTransport() (sdk.Transport, error) {
	allowed := c.m.cfg.AllowedURLs
	if !URLAllowed(c.cfg.URL, allowed) {
		return nil, fmt.Errorf("url %s is not under mcp.allowedURLs", c.cfg.URL)
	}
	headers := http.Header{}
	for _, name := range sortedKeys(c.cfg.HeadersFiles) {
		v, err := secretfile.Read(c.cfg.HeadersFiles[name])
		if err != nil {
			return nil, fmt.Errorf("headersFiles.%s: %w", name, err)
		}
		headers.Set(name, v)
	}
	client := &http.Client{
		Transport: headerTransport{base: http.DefaultTransport, headers: headers},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if !URLAllowed(req.URL.String(), allowed) {
				return fmt.Errorf("redirect to %s refused: it is not under mcp.allowedURLs", req.URL.Redacted())
			}
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			return nil
		},
	}
	return &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: client, MaxRetries: 1,
		DisableStandaloneSSE: true, MaxEventSize: MaxFrameBytes}, nil
}

// headerTransport sets headers on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

// RoundTrip sends req with the headers set.
func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header[k] = v
		}
	}
	return h.base.RoundTrip(req)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonArgs passes arguments through as they are.
func jsonArgs(b []byte) json.RawMessage { return json.RawMessage(b) }

// jsonMarshal encodes structured content.
func jsonMarshal(v any) (json.RawMessage, error) { return json.Marshal(v) }

// tail keeps the end of what is written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTail {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

// String returns the end kept, trimmed; "" for a nil tail.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
