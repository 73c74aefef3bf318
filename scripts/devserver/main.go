// Command devserver runs a Temporal dev server tuned for planmode (the
// harness's flags and search attributes) on fixed ports until interrupted:
// `make dev-server` runs it on 127.0.0.1:7233 with the Web UI on 8233 and
// its state in .cache/temporal.db.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/planmode/planmode/internal/devserver"
)

func main() {
	addr := flag.String("address", "127.0.0.1:7233", "frontend host:port")
	uiPort := flag.Int("ui-port", 8233, "Web UI port")
	db := flag.String("db", "", "SQLite file that keeps the server's state (default in memory)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *uiPort, *db); err != nil {
		fmt.Fprintln(os.Stderr, "devserver:", err)
		stop()
		os.Exit(1)
	}
}

// run starts the server and stops it when ctx ends.
func run(ctx context.Context, addr string, uiPort int, db string) error {
	if db != "" {
		if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
			return fmt.Errorf("db folder: %w", err)
		}
	}
	srv, err := devserver.Start(ctx, devserver.Config{Address: addr, UIPort: uiPort, DBFile: db})
	if err != nil {
		return err
	}
	fmt.Printf("Temporal dev server at %s (namespace %s), Web UI at %s\n", srv.Address(), srv.Namespace, srv.UIAddress())
	if db != "" {
		fmt.Printf("State kept in %s\n", db)
	}
	fmt.Println("Press Ctrl-C to stop it.")
	<-ctx.Done()
	return srv.Stop()
}
