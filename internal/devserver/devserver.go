// Package devserver starts a Temporal dev server (the Temporal CLI's
// `server start-dev`) with planmode's search attributes registered, finds
// or installs the Temporal CLI, and copies the demo workspace. `make
// dev-server`, `make demo` and the test suite use it; the test suite adds
// one shared server per test binary on top (testsuite.StartDevServer).
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdktest "go.temporal.io/sdk/testsuite"

	"github.com/planmode/planmode/signals"
)

// DefaultNamespace is the namespace the dev server creates at start.
const DefaultNamespace = "default"

// startTimeout bounds how long a dev server may take to accept clients.
const startTimeout = 2 * time.Minute

// Config configures [Start]. The zero value starts an in-memory server on
// free loopback ports with the UI enabled.
type Config struct {
	// Address is the host:port to serve the frontend on; empty picks a free
	// port on 127.0.0.1.
	Address string
	// UIPort is the Web UI's port; zero picks a free one.
	UIPort int
	// DBFile persists the server's state in a SQLite file; empty keeps it in
	// memory.
	DBFile string
	// Namespace is created at start; empty means "default".
	Namespace string
	// Binary is the Temporal CLI whose `server start-dev` runs the server;
	// empty finds it with FindTemporal.
	Binary string
	// Stdout and Stderr receive the server's output; nil discards stdout and
	// passes stderr to this process's.
	Stdout io.Writer
	Stderr io.Writer
	// Logger is the client's logger; nil logs warnings and errors to stderr.
	Logger *slog.Logger
	// DynamicConfig sets server limits and knobs (dynamic config keys such
	// as history.maximumSignalsPerExecution, to values) on top of TunedArgs.
	DynamicConfig map[string]string
}

// DevServer is a running Temporal dev server and a client connected to it.
type DevServer struct {
	// Client is connected to Namespace. Stop closes it.
	Client client.Client
	// Namespace is the namespace the server created.
	Namespace string

	address   string
	uiAddress string
	server    *sdktest.DevServer
	stderr    *quietOnStop
	stopOnce  sync.Once
	stopErr   error
}

// Address returns the frontend's host:port, what temporal.address takes.
func (s *DevServer) Address() string { return s.address }

// UIAddress returns the Web UI's base URL.
func (s *DevServer) UIAddress() string { return "http://" + s.uiAddress }

// Stop closes the client and stops the server, waiting for it to exit.
// Calling it again returns the first call's result.
func (s *DevServer) Stop() error {
	s.stopOnce.Do(func() {
		s.Client.Close()
		s.stderr.stopping.Store(true)
		if err := s.server.Stop(); err != nil {
			s.stopErr = fmt.Errorf("stop dev server at %s: %w", s.address, err)
		}
	})
	return s.stopErr
}

// SearchAttributeArgs returns the --search-attribute flags that register
// planmode's search attributes, named by the signals package.
func SearchAttributeArgs() []string {
	keys := signals.SearchAttributes
	args := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, "--search-attribute", k.GetName()+"="+k.GetValueType().String())
	}
	return args
}

// TunedArgs returns the dynamic config flags that make a dev server answer
// fast enough for tests and demos (a quick transfer queue and one task queue
// partition, so a task reaches a worker at once) and share dispatch among
// plans' tenants as a production server should (fairness, see
// docs/operations.md).
func TunedArgs() []string {
	return []string{
		"--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
		"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
		"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
		"--dynamic-config-value", "matching.enableFairness=true",
	}
}

// dynamicConfigArgs returns the --dynamic-config-value flags of kv, in
// key order.
func dynamicConfigArgs(kv map[string]string) []string {
	args := make([]string, 0, 2*len(kv))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		args = append(args, "--dynamic-config-value", k+"="+kv[k])
	}
	return args
}

// Start starts a dev server as opts says and returns it once a client has
// connected. It returns an error when the dev server cannot be found or
// built, or when the server does not come up within two minutes.
func Start(ctx context.Context, opts Config) (*DevServer, error) {
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindTemporal(ctx); err != nil {
			return nil, err
		}
	}
	addr, uiPort, err := ports(opts)
	if err != nil {
		return nil, err
	}
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	stderr := &quietOnStop{w: writerOr(opts.Stderr, os.Stderr)}
	srv, err := sdktest.StartDevServer(ctx, sdktest.DevServerOptions{
		ExistingPath:  bin,
		ClientOptions: &client.Options{HostPort: addr, Namespace: ns, Logger: clientLogger(opts.Logger)},
		DBFilename:    opts.DBFile,
		EnableUI:      true,
		UIPort:        strconv.Itoa(uiPort),
		LogLevel:      "error",
		ExtraArgs:     append(append(TunedArgs(), dynamicConfigArgs(opts.DynamicConfig)...), SearchAttributeArgs()...),
		Stdout:        writerOr(opts.Stdout, io.Discard),
		Stderr:        stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("start dev server %s on %s: %w", bin, addr, err)
	}
	host, _, _ := net.SplitHostPort(addr)
	return &DevServer{
		Client:    srv.Client(),
		Namespace: ns,
		address:   srv.FrontendHostPort(),
		uiAddress: net.JoinHostPort(host, strconv.Itoa(uiPort)),
		server:    srv,
		stderr:    stderr,
	}, nil
}

// quietOnStop passes the server's log on until Stop begins. While the
// server's services stop one after the other, it logs errors about calls
// cut short between them (context canceled, task queues it cannot reach);
// they say nothing about the work it did and would bury a test's or the
// demo's last lines.
type quietOnStop struct {
	w        io.Writer
	stopping atomic.Bool
}

func (q *quietOnStop) Write(p []byte) (int, error) {
	if q.stopping.Load() {
		return len(p), nil
	}
	return q.w.Write(p)
}

// ports resolves the frontend address and UI port, picking free loopback
// ports where opts leaves them open.
func ports(opts Config) (string, int, error) {
	addr := opts.Address
	if addr == "" {
		p, err := FreePort()
		if err != nil {
			return "", 0, err
		}
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	uiPort := opts.UIPort
	if uiPort == 0 {
		p, err := FreePort()
		if err != nil {
			return "", 0, err
		}
		uiPort = p
	}
	return addr, uiPort, nil
}

func clientLogger(l *slog.Logger) sdklog.Logger {
	if l == nil {
		l = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return sdklog.NewStructuredLogger(l)
}

func writerOr(w, def io.Writer) io.Writer {
	if w == nil {
		return def
	}
	return w
}

// FreePort returns a TCP port on 127.0.0.1 that is free now. The port is
// left in TIME_WAIT by a connection closed from the server side, so the
// kernel does not hand it to another bind(:0) in the next seconds.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr)
	c, err := net.DialTCP("tcp", nil, addr)
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer c.Close()
	sc, err := l.Accept()
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	if err := sc.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return addr.Port, nil
}
