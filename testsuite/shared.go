package testsuite

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/planmode/planmode/internal/devserver"
)

// shared is the one dev server of a test binary whose TestMain calls Main.
var shared struct {
	enabled bool
	once    sync.Once
	srv     *devserver.DevServer
	err     error
}

// Main runs a test binary's tests with one dev server shared between them:
// the first StartDevServer starts it and Main stops it after the last test.
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { testsuite.Main(m) }
func Main(m *testing.M) {
	shared.enabled = true
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// StartDevServer returns a running dev server for t. Under Main it is the
// binary's shared server; otherwise t gets its own, stopped in t.Cleanup.
// It fails t when no server can be started.
func StartDevServer(t testing.TB) *devserver.DevServer {
	t.Helper()
	if shared.enabled {
		shared.once.Do(func() {
			shared.srv, shared.err = devserver.Start(context.Background(), devserver.Config{})
		})
		if shared.err != nil {
			t.Fatalf("dev server: %v", shared.err)
		}
		return shared.srv
	}
	srv, err := devserver.Start(context.Background(), devserver.Config{})
	if err != nil {
		t.Fatalf("dev server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("dev server: %v", err)
		}
	})
	return srv
}

var queueSeq atomic.Int64

// TaskQueue returns a task queue name unique within the test binary, so
// that tests sharing a server never take each other's tasks.
func TaskQueue(t testing.TB) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return fmt.Sprintf("%s-%d-%d", name, os.Getpid(), queueSeq.Add(1))
}
