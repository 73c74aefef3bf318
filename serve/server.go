// Package serve is planmode's HTTP server for people and services that
// follow plans as they run: each plan's event log as Server-Sent Events
// (GET /plans/{id}/events), its state as JSON (GET /plans/{id}), and
// GET /healthz. Other handlers (the MCP server at /mcp) are mounted
// beside them with [WithMount], behind the same checks.
//
// The server keeps no state of its own: the [Source] (the plans, through
// Temporal) is the truth, so replicas can run side by side behind any
// balancer and a follower that reconnects with its last event id to any
// of them misses nothing. Every request but /healthz carries a bearer
// token of the tokens file; a token may be limited to some tenants'
// plans. The server listens on loopback unless told otherwise, refuses
// browsers of origins not allowed, and bounds what every connection may
// cost: see docs/serve.md.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/planmode/planmode/signals"
)

// ErrUnknownPlan is what a Source answers for a plan it does not have;
// the server answers 404.
var ErrUnknownPlan = errors.New("unknown plan")

// Source is where the server reads plans. It is the only thing the
// server knows of them; its methods are called concurrently.
type Source interface {
	// Follow yields the events of plan planID after sequence number
	// after, in order, as they happen, and ends after the plan's last
	// event (its log ended) or with an error. It stops when ctx ends or
	// the caller stops pulling, and is pulled only as fast as the caller
	// takes events.
	Follow(ctx context.Context, planID string, after int64) iter.Seq2[signals.Event, error]
	// State answers the plan's current state as JSON.
	State(ctx context.Context, planID string) (json.RawMessage, error)
	// Tenant answers the tenant the plan belongs to.
	Tenant(ctx context.Context, planID string) (string, error)
}

// Defaults of the zero fields of a Config.
const (
	DefaultListen            = "127.0.0.1:8088"
	DefaultMaxConnections    = 2000
	DefaultHeartbeat         = 15 * time.Second
	DefaultWriteTimeout      = 10 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxHeaderBytes    = 16 << 10
	DefaultRingSize          = 256
	DefaultTokensCheck       = time.Second
	DefaultShutdownTimeout   = 5 * time.Second
	// MaxBodyBytes bounds a request's body: the endpoints are GET and
	// read none.
	MaxBodyBytes = 1 << 10
	// MaxPlanIDBytes bounds a plan id in a path (Temporal's workflow id
	// limit).
	MaxPlanIDBytes = 1000
)

// Config is the server's settings; a zero field takes its default.
type Config struct {
	// Listen is the host:port of ListenAndServe.
	Listen string
	// TokensFile holds the bearer tokens (see ReadTokens). Required.
	TokensFile string
	// AllowedOrigins are the browser origins (scheme://host[:port]) that
	// may call the server; a request with another Origin is refused. A
	// request without one (not from a browser) is let through.
	AllowedOrigins []string
	// MaxConnections bounds the requests served at once, event streams
	// included; beyond it the server answers 503. /healthz is not
	// counted, so that a full server still says it is alive.
	MaxConnections int
	// Heartbeat is how often an idle event stream gets a ": ping"
	// comment, which keeps proxies from closing it and lets the server
	// find clients that are gone.
	Heartbeat time.Duration
	// WriteTimeout bounds each write to a client: a client that does not
	// take what was written in time is dropped, so that a reader that
	// never reads costs at most the socket's buffers.
	WriteTimeout      time.Duration
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	// RingSize is how many recent events of a plan the server keeps for
	// the followers that share its upstream Follow.
	RingSize int
	// TokensCheck is how often, at most, the tokens file is looked at for
	// a change.
	TokensCheck     time.Duration
	ShutdownTimeout time.Duration
}

// withDefaults returns c with its zero fields set.
func (c Config) withDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.RingSize <= 0 {
		c.RingSize = DefaultRingSize
	}
	set(&c.Heartbeat, DefaultHeartbeat)
	set(&c.WriteTimeout, DefaultWriteTimeout)
	set(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	set(&c.IdleTimeout, DefaultIdleTimeout)
	set(&c.TokensCheck, DefaultTokensCheck)
	set(&c.ShutdownTimeout, DefaultShutdownTimeout)
	return c
}

// Option adjusts a Server.
type Option func(*Server)

// WithLogger sets the logger of refused tokens files and failed reads;
// the default discards.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// Mount is a handler the server serves beside its own routes, behind the
// checks every request goes through: origin, connection bound, token
// (the caller's is in the request's context: [CallerOf]), then a bound on
// the body and on the time an answer may take. The handler knows nothing
// of tokens; the server knows nothing of what it serves.
type Mount struct {
	// Pattern is where the handler is served, as http.ServeMux reads
	// it: "/mcp" is that path only.
	Pattern string
	Handler http.Handler
	// MaxBodyBytes bounds a request's body: a larger declared body is
	// refused with 413 before the handler runs, and the handler reads
	// no more than this. Zero or less keeps MaxBodyBytes.
	MaxBodyBytes int64
	// Timeout bounds how long the request may take to be read and
	// answered, from when the handler starts. Zero or less keeps
	// Config.WriteTimeout.
	Timeout time.Duration
	// Methods are what a browser's preflight of an allowed origin is
	// told the handler answers; the default is POST.
	Methods []string
}

// WithMount serves m beside the server's routes, never over them: its
// pattern is its own, not "/" nor under /plans/ or /healthz, and not
// another mount's (http.ServeMux panics on a pattern given twice).
func WithMount(m Mount) Option { return func(s *Server) { s.mounts = append(s.mounts, m) } }

// Server serves plans' events and state over HTTP.
type Server struct {
	cfg     Config
	src     Source
	hub     *hub
	tokens  *tokenFile
	log     *slog.Logger
	origins map[string]bool
	mounts  []Mount
	active  atomic.Int64
	streams atomic.Int64
}

// New returns a server of cfg reading plans from src. The tokens file is
// read when it starts serving.
func New(cfg Config, src Source, opts ...Option) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, src: src, hub: newHub(src, cfg.RingSize),
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), origins: map[string]bool{}}
	for _, o := range opts {
		o(s)
	}
	for _, o := range cfg.AllowedOrigins {
		s.origins[o] = true
	}
	for i := range s.mounts {
		s.mounts[i] = s.mounts[i].withDefaults(cfg)
	}
	s.tokens = &tokenFile{path: cfg.TokensFile, interval: cfg.TokensCheck, now: time.Now,
		onError: func(err error) {
			s.log.Error("tokens file refused: every token is refused until it is fixed", "err", err)
		}}
	return s
}

// Streams is how many event streams are open.
func (s *Server) Streams() int { return int(s.streams.Load()) }

// Upstreams is how many plans have a shared upstream Follow open.
func (s *Server) Upstreams() int { return s.hub.active() }

// ListenAndServe listens on the configured address and serves until ctx
// ends (see Serve).
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve reads the tokens file, then serves on ln until ctx ends: then it
// ends every event stream and gives other requests ShutdownTimeout to
// finish. It returns an error when the tokens file cannot be read, or
// when serving fails.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.TokensFile == "" {
		ln.Close()
		return errors.New("serve: no tokens file: every request would be refused")
	}
	if err := s.tokens.load(); err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}
	// Requests' contexts derive from base, so that ending it ends the
	// event streams, which would otherwise hold Shutdown for ever.
	base, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		// Every answer must be written within WriteTimeout; an event
		// stream moves its deadline on before each write.
		WriteTimeout:   s.cfg.WriteTimeout,
		IdleTimeout:    s.cfg.IdleTimeout,
		MaxHeaderBytes: s.cfg.MaxHeaderBytes,
		BaseContext:    func(net.Listener) context.Context { return base },
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stop()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: shut down: %w", err)
	}
	return nil
}
