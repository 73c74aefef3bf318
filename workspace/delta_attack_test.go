package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/planmode/planmode/blobstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putStored stores s as a manifest, as a worker gone wrong or a forged
// store might, and returns its id.
func putStored(t *testing.T, s blobstore.Store, m any) string {
	t.Helper()
	data, err := json.Marshal(m)
	require.NoError(t, err)
	id := hashOf(data)
	require.NoError(t, s.Put(context.Background(), manifestKey(id), bytes.NewReader(data), int64(len(data))))
	return id
}

func TestAWholeManifestIsStoredAsBeforeDeltas(t *testing.T) {
	m := &Manifest{V: manifestVersion, Owner: owner, Entries: []ManifestEntry{
		{Path: "a", Kind: EntryDir, Mode: 0o755}, {Path: "a/b.txt", Kind: EntryFile, Mode: 0o644, Size: 1,
			Hash: hashOf([]byte("b"))}, {Path: "l", Kind: EntryLink, Target: "a/b.txt"}}}
	before, err := json.Marshal(m)
	require.NoError(t, err)
	data, id, err := encodeStored(m, nil)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(data), "manifests stored before deltas keep their ids")
	assert.Equal(t, hashOf(before), id)
}

func TestLoadRefusesABadDelta(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	file := func(p, content string) ManifestEntry {
		return ManifestEntry{Path: p, Kind: EntryFile, Mode: 0o644, Size: int64(len(content)), Hash: hashOf([]byte(content))}
	}
	dir := ManifestEntry{Path: "d", Kind: EntryDir, Mode: 0o755}
	base := putStored(t, mem, stored{V: 1, Owner: owner, Entries: []ManifestEntry{
		file("a.txt", "a"), dir, file("d/x.txt", "x")}})
	other := putStored(t, mem, stored{V: 1, Owner: "other", Entries: []ManifestEntry{file("a.txt", "a")}})
	delta := func(d stored) stored {
		d.V, d.Owner = deltaVersion, owner
		if d.Base == "" {
			d.Base = base
		}
		if d.Depth == 0 {
			d.Depth = 1
		}
		return d
	}
	good := putStored(t, mem, delta(stored{Entries: []ManifestEntry{file("b.txt", "b")}, Removed: []string{"a.txt"}}))
	m, err := f.Load(ctx, good)
	require.NoError(t, err)
	assert.Equal(t, []string{"b.txt", "d", "d/x.txt"}, entryPaths(m.Entries))

	cases := []struct {
		name string
		m    any
		want string
	}{
		{"a whole manifest of version 2", stored{V: deltaVersion, Owner: owner}, "version 2, not 1"},
		{"a delta of version 1", stored{V: 1, Owner: owner, Base: base, Depth: 1}, "a delta of version 1"},
		{"a base that is no id", delta(stored{Base: "../../etc/passwd"}), "is not a manifest id"},
		{"a delta without a depth", stored{V: deltaVersion, Owner: owner, Base: base}, "depth 0 is not 1 to 16"},
		{"a delta too deep", delta(stored{Depth: maxDepth + 1}), "depth 17 is not 1 to 16"},
		{"a depth its base does not have", delta(stored{Depth: 2}), "lies at depth 0, not 1"},
		{"a base of another owner", delta(stored{Base: other}), "its base " + other + " belongs to another workspace"},
		{"a removed path that climbs", delta(stored{Removed: []string{"../a.txt"}}), "not a clean path"},
		{"a removed path twice", delta(stored{Removed: []string{"a.txt", "a.txt"}}), "out of order or repeated"},
		{"a path removed and changed", delta(stored{Entries: []ManifestEntry{file("a.txt", "new")},
			Removed: []string{"a.txt"}}), "both removed and changed"},
		{"a removed path the base lacks", delta(stored{Removed: []string{"nothing.txt"}}), "is not in its base"},
		{"a folder removed, not what it holds", delta(stored{Removed: []string{"d"}}), "lies in no folder"},
		{"entries out of order", delta(stored{Entries: []ManifestEntry{file("z", "z"), file("b", "b")}}),
			"out of order or repeated"},
		{"an entry that leads out", delta(stored{Entries: []ManifestEntry{{Path: "l", Kind: EntryLink,
			Target: "../../etc"}}}), "may lead outside"},
		{"a file in no folder", delta(stored{Entries: []ManifestEntry{file("nowhere/x", "x")}}), "lies in no folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := putStored(t, mem, c.m)
			_, err := f.Load(ctx, id)
			requireRefusal(t, err, ErrSnapshot, c.want)
			_, err = f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: owner, ID: id})
			requireRefusal(t, err, ErrSnapshot, c.want)
		})
	}
}

func TestLoadRefusesADeltaOverAnotherOwnersManifest(t *testing.T) {
	f, mem := newFiles(t)
	ctx := context.Background()
	theirs := record(t, f, filesFixture(t))
	// A forged delta of "fork" that would take shop's files without an
	// adopt: refused, whoever asks.
	forged := putStored(t, mem, stored{V: deltaVersion, Owner: "fork", Base: theirs.ID, Depth: 1,
		Entries: []ManifestEntry{}})
	for _, who := range []string{"fork", owner} {
		_, err := f.Sync(ctx, SyncRequest{Dir: t.TempDir(), Owner: who, ID: forged})
		requireRefusal(t, err, ErrSnapshot, "belongs to another workspace")
	}
	_, err := f.Adopt(ctx, forged, "fork", "next", "p")
	requireRefusal(t, err, ErrSnapshot, "belongs to another workspace")
}
