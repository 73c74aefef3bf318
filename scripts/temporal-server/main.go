// Command temporal-server runs a Temporal dev server: Temporal server
// 1.32 on SQLite with the Web UI 2.54, in one process. It takes the command
// line the Go SDK's testsuite.StartDevServer gives a Temporal CLI
// (`server start-dev --ip … --port … …`), so planmode's tests and demos run
// on it in place of the CLI, whose newer releases cannot be built from the
// Go module proxy. It lives in its own module so that planmode's go.mod
// does not carry the server's dependencies.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	uiversion "github.com/temporalio/ui-server/v2/server/version"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/headers"
)

// options is what `server start-dev` was asked for.
type options struct {
	ip          string
	port        int
	httpPort    int
	metricsPort int
	uiIP        string
	uiPort      int
	headless    bool
	namespaces  []string
	dbFile      string
	logFormat   string
	logLevel    string
	searchAttrs map[string]enumspb.IndexedValueType
	dynConfig   map[string]any
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// versionLine names the server and UI this binary carries; the install
// script checks it.
func versionLine() string {
	return fmt.Sprintf("temporal-server version %s (Server %s, UI %s)",
		headers.ServerVersion, headers.ServerVersion, uiversion.UIVersion)
}

// run serves until ctx ends and returns the process's exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v" || args[0] == "version") {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if len(args) < 2 || args[0] != "server" || args[1] != "start-dev" {
		fmt.Fprintln(stderr, "usage: temporal-server server start-dev [flags] | --version")
		return 2
	}
	opts, err := parseFlags(args[2:], stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintln(stderr, "temporal-server:", err)
		return 2
	}
	srv, err := start(opts)
	if err != nil {
		fmt.Fprintln(stderr, "temporal-server: failed starting server:", err)
		return 1
	}
	printBanner(stdout, opts)
	<-ctx.Done()
	srv.stop()
	return 0
}

func printBanner(w io.Writer, o *options) {
	fmt.Fprintf(w, "%s\n\n", versionLine())
	fmt.Fprintf(w, "%-21s %s:%d\n", "Temporal Server:", o.ip, o.port)
	persistence := "in-memory"
	if o.dbFile != "" {
		persistence = o.dbFile
	}
	fmt.Fprintf(w, "%-21s %s\n", "Temporal Persistence:", persistence)
	if !o.headless {
		fmt.Fprintf(w, "%-21s http://%s:%d\n", "Temporal UI:", o.uiIP, o.uiPort)
	}
	if o.metricsPort > 0 {
		fmt.Fprintf(w, "%-21s http://%s:%d/metrics\n", "Temporal Metrics:", o.ip, o.metricsPort)
	}
}

// parseFlags reads start-dev's flags, with the CLI's names and defaults.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	var searchAttrs, dynConfig []string
	fs := flag.NewFlagSet("server start-dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.ip, "ip", "localhost", "IP address the frontend binds to")
	fs.IntVar(&o.port, "port", 7233, "frontend gRPC port")
	fs.IntVar(&o.port, "p", 7233, "shorthand for --port")
	fs.IntVar(&o.httpPort, "http-port", 0, "frontend HTTP API port (default a free port)")
	fs.IntVar(&o.metricsPort, "metrics-port", 0, "Prometheus metrics port (default none)")
	fs.StringVar(&o.uiIP, "ui-ip", "", "IP address the Web UI binds to (default --ip)")
	fs.IntVar(&o.uiPort, "ui-port", 0, "Web UI port (default --port + 1000)")
	fs.BoolVar(&o.headless, "headless", false, "do not start the Web UI")
	fs.StringVar(&o.dbFile, "db-filename", "", "SQLite file that keeps the state (default in memory)")
	fs.StringVar(&o.dbFile, "f", "", "shorthand for --db-filename")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text, pretty or json")
	fs.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info, warn, error or never")
	fs.Func("namespace", "namespace to create besides \"default\" (repeatable)", func(s string) error {
		o.namespaces = append(o.namespaces, s)
		return nil
	})
	fs.Func("search-attribute", "NAME=TYPE to register in every namespace (repeatable)", func(s string) error {
		searchAttrs = append(searchAttrs, s)
		return nil
	})
	fs.Func("dynamic-config-value", "KEY=JSON dynamic config value (repeatable)", func(s string) error {
		dynConfig = append(dynConfig, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	} else if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return o, o.finish(searchAttrs, dynConfig)
}

// finish checks the parsed flags and fills in what depends on others.
func (o *options) finish(searchAttrs, dynConfig []string) error {
	// The server wants an IP, not a host name.
	if o.ip == "localhost" {
		o.ip = "127.0.0.1"
	}
	if o.uiIP == "" {
		o.uiIP = o.ip
	}
	if o.uiPort == 0 {
		o.uiPort = min(o.port+1000, 65535)
	}
	o.namespaces = dedupe(append([]string{"default"}, o.namespaces...))
	if o.logLevel != "never" && !strings.Contains(" debug info warn error ", " "+o.logLevel+" ") {
		return fmt.Errorf("invalid log level %q", o.logLevel)
	}
	var err error
	if o.searchAttrs, err = parseSearchAttributes(searchAttrs); err != nil {
		return err
	}
	o.dynConfig, err = parseDynamicConfig(dynConfig)
	return err
}

func dedupe(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// parseSearchAttributes reads NAME=TYPE pairs; the type is matched without
// regard to case, by its short name (Keyword) or its full one.
func parseSearchAttributes(pairs []string) (map[string]enumspb.IndexedValueType, error) {
	attrs := make(map[string]enumspb.IndexedValueType, len(pairs))
	for _, p := range pairs {
		name, typ, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("invalid search attribute %q: want NAME=TYPE", p)
		}
		t := indexedValueType(typ)
		if t == enumspb.INDEXED_VALUE_TYPE_UNSPECIFIED {
			return nil, fmt.Errorf("invalid search attribute value type %q", typ)
		}
		attrs[name] = t
	}
	return attrs, nil
}

func indexedValueType(s string) enumspb.IndexedValueType {
	for name, v := range enumspb.IndexedValueType_shorthandValue {
		if strings.EqualFold(s, name) {
			return enumspb.IndexedValueType(v)
		}
	}
	if v, ok := enumspb.IndexedValueType_value[strings.ToUpper(s)]; ok {
		return enumspb.IndexedValueType(v)
	}
	return enumspb.INDEXED_VALUE_TYPE_UNSPECIFIED
}

// parseDynamicConfig reads KEY=VALUE pairs whose values are JSON, as the
// CLI does. Whole numbers become int, since the server's integer settings
// accept no other numeric type.
func parseDynamicConfig(pairs []string) (map[string]any, error) {
	values := make(map[string]any, len(pairs))
	for _, p := range pairs {
		key, raw, ok := strings.Cut(p, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("invalid dynamic config value %q: want KEY=JSON", p)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("invalid JSON value for dynamic config key %q: %w", key, err)
		} else if dec.InputOffset() != int64(len(raw)) {
			return nil, fmt.Errorf("invalid JSON value for dynamic config key %q: trailing data", key)
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = int(i)
			} else if v, err = n.Float64(); err != nil {
				return nil, fmt.Errorf("invalid number for dynamic config key %q: %w", key, err)
			}
		}
		values[key] = v
	}
	return values, nil
}
