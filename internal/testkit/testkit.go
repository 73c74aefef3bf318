// Package testkit holds helpers that tests of several packages share: a
// workspace written from a map of files and a webhook receiver. Only tests import it (the layout
// test keeps it so).
package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Workspace returns a real (symlink-free) temporary directory holding
// files, named by slash-separated paths relative to it.
func Workspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// Delivery is one request a Receiver got.
type Delivery struct {
	Header http.Header
	Body   []byte
}

// Receiver is a webhook receiver on loopback that answers with the given
// statuses in turn (200 once they run out; a 429 with Retry-After: 7) and
// records every delivery.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []Delivery
}

// NewReceiver starts a Receiver, closed when t ends.
func NewReceiver(t testing.TB, statuses ...int) *Receiver {
	r := &Receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, Delivery{Header: req.Header.Clone(), Body: body})
		code := http.StatusOK
		if len(r.statuses) > 0 {
			code, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, http.StatusText(code)+" from the receiver")
	}))
	t.Cleanup(r.Close)
	return r
}

// Deliveries returns what the receiver got so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}
