package workspace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/planmode/planmode/blobstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sizes of the benchmarks' workspace: what a mid-sized repository with
// its .git holds.
const (
	benchFiles = 2000
	benchBytes = 50 << 20
)

// fillWorkspace writes files files of random content, bytes in all, in
// folders of 50, into a new folder under dir, and returns it.
func fillWorkspace(tb testing.TB, dir string, files int, bytes int64) string {
	tb.Helper()
	ws := filepath.Join(dir, "ws")
	rng := rand.New(rand.NewChaCha8([32]byte{1}))
	buf := make([]byte, bytes/int64(files))
	for i := range files {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		p := filepath.Join(ws, fmt.Sprintf("d%03d", i/50), fmt.Sprintf("f%04d.dat", i))
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, buf, 0o644))
	}
	return ws
}

// stepChanges rewrites three files of ws, as a step would, with content
// new for round n.
func stepChanges(tb testing.TB, ws string, n int) {
	tb.Helper()
	for i := range 3 {
		p := filepath.Join(ws, "d000", fmt.Sprintf("f%04d.dat", i))
		require.NoError(tb, os.WriteFile(p, fmt.Appendf(nil, "round %d, file %d\n", n, i), 0o644))
	}
}

// storedBytes sums the sizes of what the store holds under prefix.
func storedBytes(tb testing.TB, s blobstore.Store, prefix string) int64 {
	tb.Helper()
	var n int64
	require.NoError(tb, s.List(context.Background(), prefix, func(i blobstore.Info) error {
		n += i.Size
		return nil
	}))
	return n
}

// BenchmarkRecordIncremental records a 2,000-file, 50 MB workspace after
// a step changed three of its files: what a snapshot per step costs. The
// bytes stored count the blobs, the manifest (a delta) and the pin.
func BenchmarkRecordIncremental(b *testing.B) {
	ctx := context.Background()
	ws := fillWorkspace(b, b.TempDir(), benchFiles, benchBytes)
	mem := blobstore.NewMemory()
	f := &Files{Store: mem, StateDir: b.TempDir()}
	for range 2 { // the second settles files written just before the first
		_, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: owner, PlanID: "p"})
		require.NoError(b, err)
	}
	var hashed int
	before := storedBytes(b, mem, "")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		stepChanges(b, ws, i)
		b.StartTimer()
		rec, err := f.Record(ctx, RecordRequest{Dir: ws, Owner: owner, PlanID: "p"})
		require.NoError(b, err)
		hashed += rec.Hashed
	}
	b.StopTimer()
	stored := storedBytes(b, mem, "") - before
	b.ReportMetric(float64(stored)/float64(b.N), "bytes-stored/op")
	b.ReportMetric(float64(hashed)/float64(b.N), "files-hashed/op")
}

// BenchmarkHydrate syncs the 50 MB workspace into an empty folder of a
// worker with no state: a fresh worker taking over a plan.
func BenchmarkHydrate(b *testing.B) {
	ctx := context.Background()
	mem := blobstore.NewMemory()
	ws := fillWorkspace(b, b.TempDir(), benchFiles, benchBytes)
	rec, err := (&Files{Store: mem, StateDir: b.TempDir()}).Record(ctx, RecordRequest{Dir: ws, Owner: owner})
	require.NoError(b, err)
	b.SetBytes(rec.Bytes)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		f := &Files{Store: mem, StateDir: filepath.Join(dir, "state")}
		b.StartTimer()
		synced, err := f.Sync(ctx, SyncRequest{Dir: filepath.Join(dir, "ws"), Owner: owner, ID: rec.ID})
		require.NoError(b, err)
		require.Equal(b, rec.Bytes, synced.FetchedBytes)
	}
}

// TestDedupAcrossForks forks a workspace ten times, each fork changing a
// small file, and shows the store holds the shared content once.
func TestDedupAcrossForks(t *testing.T) {
	ctx := context.Background()
	f, mem := newFiles(t)
	ws := fillWorkspace(t, t.TempDir(), 200, 2<<20)
	base := record(t, f, ws)
	for i := range 10 {
		fork := fmt.Sprintf("fork-%d", i)
		id, err := f.Adopt(ctx, base.ID, owner, fork, fork)
		require.NoError(t, err)
		dir := f.CopyDir(fork, "main")
		_, err = f.Sync(ctx, SyncRequest{Dir: dir, Owner: fork, ID: id})
		require.NoError(t, err)
		stepChanges(t, dir, i)
		_, err = f.Record(ctx, RecordRequest{Dir: dir, Owner: fork, PlanID: fork})
		require.NoError(t, err)
	}
	stored := storedBytes(t, mem, blobsPrefix)
	t.Logf("11 workspaces of %d bytes: %d bytes stored (%.2fx one)", base.Bytes, stored,
		float64(stored)/float64(base.Bytes))
	assert.Less(t, stored, base.Bytes+base.Bytes/50, "the forks add only their changed files")
}
