package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Errors of [Manager.Call]; the error returned wraps one and says why.
var (
	// ErrUnknownTool: no tool of that public name is in the catalogue.
	ErrUnknownTool = errors.New("unknown MCP tool")
	// ErrUnavailable: the server could not be reached or restarted; the
	// call certainly did not start, and may be tried again.
	ErrUnavailable = errors.New("MCP server unavailable")
	// ErrOutcomeUnknown: the call was sent but no answer came back (the
	// server crashed, the connection broke, the timeout passed); it may
	// have run.
	ErrOutcomeUnknown = errors.New("MCP call outcome unknown")
	// ErrCatalogueChanged: the server was restarted and now offers other
	// tools than the catalogue holds; the call was not made.
	ErrCatalogueChanged = errors.New("MCP tools changed")
)

// Manager holds a session with every configured server and the catalogue
// of their tools. It is safe for concurrent use.
type Manager struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context // the stdio servers' lifetime
	cancel context.CancelFunc
	// dial, set by tests, replaces the transports built from a server's
	// configuration.
	dial func(Server) (sdk.Transport, error)

	mu    sync.Mutex
	conns map[string]*conn
	cat   Catalogue
}

// Start connects every server of cfg at once, each within the connect
// timeout, and lists their tools. It never fails: a server that cannot be
// reached is in the catalogue's problems, with its tools absent, and is
// logged at error level. The stdio servers run until Close, or until ctx
// ends.
func Start(ctx context.Context, cfg Config) *Manager {
	return start(ctx, cfg, nil)
}

func start(ctx context.Context, cfg Config, dial func(Server) (sdk.Transport, error)) *Manager {
	m := &Manager{cfg: cfg, log: cfg.Logger, dial: dial, conns: map[string]*conn{}}
	if m.log == nil {
		m.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m.ctx, m.cancel = context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, s := range cfg.Servers {
		c := &conn{m: m, cfg: s, sem: make(chan struct{}, 1)}
		m.conns[s.Name] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.sem <- struct{}{}
			defer func() { <-c.sem }()
			if _, err := c.connect(); err != nil {
				m.mu.Lock()
				c.problems = []Problem{{Server: s.Name, Reason: err.Error()}}
				m.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	m.mu.Lock()
	m.rebuild()
	cat := m.cat
	m.mu.Unlock()
	for _, p := range cat.Problems {
		if p.Tool == "" {
			m.log.Error("MCP server left out: its tools are not offered and calls to them fail", "server", p.Server, "reason", p.Reason)
		} else {
			m.log.Warn("MCP tool left out", "server", p.Server, "tool", p.Tool, "reason", p.Reason)
		}
	}
	m.log.Info("MCP tools", "servers", len(cfg.Servers), "tools", len(cat.Tools), "digest", cat.Digest)
	return m
}

// rebuild makes the catalogue from every server's tools; m.mu is held.
func (m *Manager) rebuild() {
	var ts []Tool
	var problems []Problem
	for _, s := range m.cfg.Servers {
		c := m.conns[s.Name]
		ts = append(ts, c.tools...)
		problems = append(problems, c.problems...)
	}
	m.cat = newCatalogue(ts, problems)
}

// Catalogue returns the tools offered now. A nil Manager offers none.
func (m *Manager) Catalogue() Catalogue {
	if m == nil {
		return newCatalogue(nil, nil)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cat
}

// Result is what a tool answered.
type Result struct {
	// Text is the answer's content as text: text parts as they are, other
	// parts (images, audio, resources) described in a line.
	Text string
	// Structured is the answer's structured content, as JSON; nil when
	// there is none.
	Structured json.RawMessage
	// IsError is set when the tool reports that it failed (isError), or
	// the server refused the call; Text says why.
	IsError bool
}

// Call calls the tool of public name name with args, a JSON object (empty
// means none), within the server's timeout. The error wraps
// ErrUnknownTool, ErrUnavailable, ErrCatalogueChanged or
// ErrOutcomeUnknown, or is ctx's own when ctx ended before the call was
// sent.
func (m *Manager) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	if m == nil {
		return Result{}, fmt.Errorf("%w %s: no MCP server is configured", ErrUnknownTool, name)
	}
	m.mu.Lock()
	t, ok := m.cat.Tool(name)
	m.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w %s%s", ErrUnknownTool, name, m.whyAbsent(name))
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return Result{IsError: true, Text: fmt.Sprintf("the arguments of %s must be a JSON object: %v", name, err)}, nil
	}
	return m.conns[t.Server].call(ctx, t, args)
}

// whyAbsent says why name is not offered, when a problem of its server
// says so.
func (m *Manager) whyAbsent(name string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.cat.Problems {
		if p.Tool == "" && strings.HasPrefix(name, PublicName(p.Server, "")) {
			return fmt.Sprintf(": server %s is unavailable: %s", p.Server, p.Reason)
		}
		if p.Tool != "" && PublicName(p.Server, p.Tool) == name {
			return ": " + p.Reason
		}
	}
	return ""
}

// Close ends every session and stops the stdio servers.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, c := range m.conns {
		done := make(chan error, 1)
		go func() {
			c.sem <- struct{}{}
			done <- c.close()
			<-c.sem
		}()
		// A server that does not answer the end of its session (an HTTP
		// server holding the DELETE until its calls end) must not hold
		// the worker's shutdown.
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-time.After(closeTimeout):
			errs = append(errs, fmt.Errorf("mcp server %s: not closed within %s", c.cfg.Name, closeTimeout))
		}
	}
	m.cancel()
	return errors.Join(errs...)
}

// closeTimeout bounds closing one server's session at shutdown.
var closeTimeout = 5 * time.Second
