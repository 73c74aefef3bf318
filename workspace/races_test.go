package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/blobstore"
)

// A sync cut off half-way (a cancelled or killed activity, a full disk)
// leaves the folder neither what it was nor the manifest: At names no
// manifest, so the next activity brings it to one whole.
func TestASyncCutOffHalfWayIsRedone(t *testing.T) {
	f, _ := newFiles(t)
	dir := filepath.Join(t.TempDir(), "ws")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o644))
	m1 := record(t, f, dir).ID
	require.NoError(t, os.Remove(filepath.Join(dir, "b.txt")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.txt"), []byte("d"), 0o644))
	m2 := record(t, f, dir).ID
	require.Equal(t, m2, f.At(dir))

	ctx, cancel := context.WithCancel(context.Background())
	testHook = func(op, rel string) {
		if op == "remove" {
			cancel() // the activity is cancelled after the first removal
		}
	}
	defer func() { testHook = nil }()
	_, err := f.Sync(ctx, SyncRequest{Dir: dir, Owner: owner, ID: m1})
	require.Error(t, err)
	testHook = nil

	changed, _, err := f.Changed(context.Background(), dir, m2, 0)
	require.NoError(t, err)
	require.NotEmpty(t, changed, "the folder is no longer at m2")
	assert.Empty(t, f.At(dir), "the folder was half-synced (%v): only a sync says what it holds", changed)
}

// racing wraps a store and runs fn once, when Collect lists the blobs: a
// record on another worker that lands in the middle of a collection.
type racing struct {
	blobstore.Store
	once sync.Once
	fn   func()
}

func (r *racing) List(ctx context.Context, prefix string, fn func(blobstore.Info) error) error {
	if prefix == blobsPrefix {
		r.once.Do(r.fn)
	}
	return r.Store.List(ctx, prefix, fn)
}

// A record that takes up a blob an old plan stored puts it again, so a
// collection running meanwhile (its manifest list taken before the new
// manifest) finds it young and keeps it.
func TestACollectionKeepsTheOldBlobsARecordTakesUp(t *testing.T) {
	mem := blobstore.NewMemory()
	old := time.Now().Add(-2 * time.Hour)
	mem.Now = func() time.Time { return old }
	ctx := context.Background()
	f := &Files{Store: mem, StateDir: filepath.Join(t.TempDir(), "state")}
	f.now = func() time.Time { return time.Now().Add(time.Second) }
	gone := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.MkdirAll(gone, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gone, "go.mod"), []byte("module shop\n"), 0o644))
	_, err := f.Record(ctx, RecordRequest{Dir: gone, Owner: owner, PlanID: "ended-long-ago"})
	require.NoError(t, err)
	mem.Now = nil

	live := filepath.Join(t.TempDir(), "live")
	require.NoError(t, os.MkdirAll(live, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(live, "go.mod"), []byte("module shop\n"), 0o644))
	var newID string
	rs := &racing{Store: mem}
	rs.fn = func() {
		w := &Files{Store: mem, StateDir: filepath.Join(t.TempDir(), "state2")}
		w.now = f.now
		rec, err := w.Record(ctx, RecordRequest{Dir: live, Owner: "live", PlanID: "live-plan"})
		require.NoError(t, err)
		newID = rec.ID
	}
	g := &Files{Store: rs, StateDir: filepath.Join(t.TempDir(), "state3")}
	state := func(_ context.Context, id string) (bool, time.Time, error) {
		return id == "live-plan", time.Time{}, nil
	}
	got, err := g.Collect(ctx, CollectRequest{Now: time.Now(), Retention: time.Hour, Grace: time.Hour, PlanState: state})
	require.NoError(t, err)
	t.Logf("collected %+v", got)

	fresh := filepath.Join(t.TempDir(), "fresh")
	h := &Files{Store: mem, StateDir: filepath.Join(t.TempDir(), "state4")}
	_, err = h.Sync(ctx, SyncRequest{Dir: fresh, Owner: "live", ID: newID})
	if err != nil && strings.Contains(err.Error(), "not found") {
		t.Errorf("the live plan's manifest names a blob the collection removed: %v", err)
	}
	require.NoError(t, err)
}
