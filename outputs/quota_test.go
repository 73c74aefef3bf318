package outputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diskBytes sums the regular files under dir.
func diskBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	}))
	return n
}

// age sets a plan folder's modification time to now minus d.
func age(t *testing.T, s *Store, run string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	require.NoError(t, os.Chtimes(filepath.Join(s.Dir(), run), at, at))
}

func TestHostilePlanStopsAtItsCap(t *testing.T) {
	s := New(t.TempDir())
	s.Limit, s.MaxPlanBytes = 1000, 2500
	chunk := []byte(strings.Repeat("x", 100))
	for i := range 20 {
		f := s.Begin(Name{Run: "hostile", Step: "s", Origin: FromTool, Seq: fmt.Sprint(i)})
		for range 50 {
			n, err := f.Write(chunk)
			require.NoError(t, err, "a command streaming into a full store sees no error")
			require.Equal(t, len(chunk), n)
		}
		_, err := f.Commit("")
		if i >= 3 {
			require.ErrorIs(t, err, ErrFull, "file %d", i)
		}
	}
	// Two whole files, one cut by the plan's cap, each with its note.
	assert.LessOrEqual(t, diskBytes(t, s.Dir()), int64(2500+3*200), "the plan's folder holds its cap and the notes")
	entries, err := os.ReadDir(filepath.Join(s.Dir(), "hostile"))
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no file, not even a temporary one, once the plan is full")

	ref, err := s.Save(Name{Run: "another", Step: "s", Origin: FromModel}, "another plan has its own cap")
	require.NoError(t, err)
	assert.FileExists(t, ref)
}

func TestPlanCapNotesTheCutAndKeepsEarlierFiles(t *testing.T) {
	s := New(t.TempDir())
	s.MaxPlanBytes = 100
	name := func(seq string) Name { return Name{Run: "wf", Step: "s1", Origin: FromModel, Seq: seq} }
	first, err := s.Save(name("1"), strings.Repeat("a", 60))
	require.NoError(t, err)

	cut, err := s.Save(name("2"), strings.Repeat("b", 60))
	require.NoError(t, err, "what fits is kept")
	data, err := os.ReadFile(cut)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("b", 40)+
		"\n… [full output stopped at 40 bytes: this plan's output store is full (outputs.maxPlanBytes); 20 more bytes not kept]\n",
		string(data))

	_, err = s.Save(name("3"), "c")
	require.ErrorIs(t, err, ErrFull)
	assert.Contains(t, err.Error(), "outputs.maxPlanBytes")
	assert.NoFileExists(t, s.path(name("3")))
	data, err = os.ReadFile(first)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("a", 60), string(data), "earlier files stay whole")
}

func TestPlanCapCountsWhatEarlierRunsLeft(t *testing.T) {
	dir := t.TempDir()
	_, err := New(dir).Save(Name{Run: "wf", Step: "s", Origin: FromTool, Seq: "1"}, strings.Repeat("a", 80))
	require.NoError(t, err)

	s := New(dir) // a restarted worker
	s.MaxPlanBytes = 100
	ref, err := s.Save(Name{Run: "wf", Step: "s", Origin: FromTool, Seq: "2"}, strings.Repeat("b", 50))
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), strings.Repeat("b", 20)+"\n… [full output stopped at 20 bytes"),
		"the 80 bytes on disk count: %q", data)
}

func TestReplacingAFileFreesTheOldOne(t *testing.T) {
	s := New(t.TempDir())
	s.MaxPlanBytes = 100
	n := Name{Run: "wf", Step: "s", Origin: FromTool, Seq: "retry"}
	for i := range 5 {
		ref, err := s.Save(n, strings.Repeat(fmt.Sprint(i), 60))
		require.NoError(t, err, "attempt %d", i)
		data, err := os.ReadFile(ref)
		require.NoError(t, err)
		assert.Equal(t, strings.Repeat(fmt.Sprint(i), 60), string(data), "a retry replaces, it does not add")
	}
	f := s.Begin(Name{Run: "wf", Step: "s", Origin: FromTool, Seq: "dropped"})
	_, err := f.Write([]byte(strings.Repeat("d", 40)))
	require.NoError(t, err)
	f.Discard()
	_, err = s.Save(Name{Run: "wf", Step: "s2", Origin: FromTool}, strings.Repeat("e", 40))
	require.NoError(t, err, "a discarded file frees what it held")
}

func TestTotalCapEvictsTheOldestOtherPlan(t *testing.T) {
	s := New(t.TempDir())
	s.MaxBytes = 100
	save := func(run string, size int) string {
		ref, err := s.Save(Name{Run: run, Step: "s", Origin: FromTool}, strings.Repeat("x", size))
		require.NoError(t, err)
		return ref
	}
	save("oldest", 40)
	save("older", 40)
	age(t, s, "oldest", 2*time.Hour)
	age(t, s, "older", time.Hour)

	ref := save("new", 50)
	assert.NoDirExists(t, filepath.Join(s.Dir(), "oldest"), "the plan written longest ago makes room")
	assert.DirExists(t, filepath.Join(s.Dir(), "older"), "no more than needed goes")
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Len(t, data, 50, "the new file is whole")
	assert.LessOrEqual(t, diskBytes(t, s.Dir()), int64(100))
}

func TestTotalCapSparesFoldersBeingWrittenThenRefuses(t *testing.T) {
	s := New(t.TempDir())
	s.MaxBytes = 100
	busy := s.Begin(Name{Run: "busy", Step: "s", Origin: FromTool})
	_, err := busy.Write([]byte(strings.Repeat("b", 40)))
	require.NoError(t, err)
	age(t, s, "busy", 3*time.Hour)
	_, err = s.Save(Name{Run: "idle", Step: "s", Origin: FromTool}, strings.Repeat("i", 40))
	require.NoError(t, err)
	age(t, s, "idle", time.Hour)

	_, err = s.Save(Name{Run: "new", Step: "s", Origin: FromTool}, strings.Repeat("n", 50))
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Join(s.Dir(), "idle"), "the idle folder goes")
	busyRef, err := busy.Commit("")
	require.NoError(t, err, "the older folder being written stays")
	data, err := os.ReadFile(busyRef)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("b", 40), string(data))

	// Every other folder is being written: none can go, so little is kept.
	for _, run := range []string{"busy", "new"} {
		hold := s.Begin(Name{Run: run, Step: "s2", Origin: FromTool})
		_, err = hold.Write([]byte("h"))
		require.NoError(t, err)
		defer hold.Discard()
	}
	ref, err := s.Save(Name{Run: "third", Step: "s", Origin: FromTool}, strings.Repeat("t", 30))
	require.NoError(t, err)
	data, err = os.ReadFile(ref)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("t", 8)+
		"\n… [full output stopped at 8 bytes: the output store is full (outputs.maxBytes); 22 more bytes not kept]\n",
		string(data))
	assert.DirExists(t, filepath.Join(s.Dir(), "busy"))
	assert.DirExists(t, filepath.Join(s.Dir(), "new"))
	_, err = s.Save(Name{Run: "third", Step: "s2", Origin: FromTool}, "x")
	require.ErrorIs(t, err, ErrFull)
	assert.Contains(t, err.Error(), "outputs.maxBytes")
}

func TestPruneRemovesOnlyExpiredFolders(t *testing.T) {
	s := New(t.TempDir())
	s.MaxBytes = 100
	for _, run := range []string{"expired", "recent", "writing"} {
		_, err := s.Save(Name{Run: run, Step: "s", Origin: FromTool}, strings.Repeat("x", 30))
		require.NoError(t, err)
	}
	age(t, s, "expired", 200*time.Hour)
	age(t, s, "recent", 100*time.Hour)
	open := s.Begin(Name{Run: "writing", Step: "s2", Origin: FromTool})
	_, err := open.Write([]byte("w"))
	require.NoError(t, err)
	age(t, s, "writing", 300*time.Hour)

	removed, err := s.Prune(time.Now(), 168*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{"expired"}, removed)
	assert.NoDirExists(t, filepath.Join(s.Dir(), "expired"))
	assert.DirExists(t, filepath.Join(s.Dir(), "recent"), "within the retention")
	assert.DirExists(t, filepath.Join(s.Dir(), "writing"), "a folder being written is never pruned")
	open.Discard()

	ref, err := s.Save(Name{Run: "next", Step: "s", Origin: FromTool}, strings.Repeat("y", 35))
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Len(t, data, 35, "the pruned bytes are free again, without evicting")
	assert.DirExists(t, filepath.Join(s.Dir(), "recent"))

	missing := New(filepath.Join(t.TempDir(), "none"))
	removed, err = missing.Prune(time.Now(), time.Hour)
	require.NoError(t, err, "a store never written has nothing to prune")
	assert.Empty(t, removed)
}

func TestOutputsAreTheWorkersOnly(t *testing.T) {
	dir := t.TempDir()
	// What an earlier version left open to others.
	legacy := filepath.Join(dir, "legacy")
	require.NoError(t, os.Mkdir(legacy, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(legacy, "s-tool-1.txt"), []byte("old"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o755))

	s := New(dir)
	ref, err := s.Save(Name{Run: "wf", Step: "s", Origin: FromTool}, "secret-ish output")
	require.NoError(t, err)
	mode := func(p string) fs.FileMode {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	assert.Equal(t, fs.FileMode(0o600), mode(ref))
	assert.Equal(t, fs.FileMode(0o700), mode(filepath.Dir(ref)))
	assert.Equal(t, fs.FileMode(0o700), mode(dir), "the store's folder cannot be listed by others")
	assert.Equal(t, fs.FileMode(0o700), mode(legacy), "an older folder is closed at first use")
	assert.Equal(t, fs.FileMode(0o600), mode(filepath.Join(legacy, "s-tool-1.txt")))

	fresh := New(filepath.Join(t.TempDir(), "new", "outputs"))
	ref, err = fresh.Save(Name{Run: "wf", Step: "s", Origin: FromTool}, "x")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), mode(fresh.Dir()), "a store made here is closed from the start")
	assert.Equal(t, fs.FileMode(0o600), mode(ref))
}

func TestConcurrentPlansStayWithinTheCaps(t *testing.T) {
	s := New(t.TempDir())
	s.Limit, s.MaxPlanBytes, s.MaxBytes = 300, 1000, 3000
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Go(func() {
			for i := range 10 {
				f := s.Begin(Name{Run: fmt.Sprint("plan-", p), Step: "s", Origin: FromTool, Seq: fmt.Sprint(i)})
				for range 5 {
					_, _ = f.Write([]byte(strings.Repeat("z", 100)))
				}
				if _, err := f.Commit(""); err != nil && !errors.Is(err, ErrFull) {
					t.Errorf("commit: %v", err)
				}
			}
		})
	}
	wg.Wait()
	const notes = 8 * 10 * 120 // at most one note per file
	assert.LessOrEqual(t, diskBytes(t, s.Dir()), int64(3000+notes))
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Equal(t, diskBytes(t, s.Dir()), s.total, "the running total is what is on disk")
}

func TestForeignFoldersAreNeverRemoved(t *testing.T) {
	dir := t.TempDir()
	// outputs.dir set to a folder that holds other things too.
	for _, p := range []string{"notes/todo.txt", "snapshots/plan-1/main.go", "photos/a-tool-b.jpg"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(strings.Repeat("f", 60)), 0o644))
	}
	s := New(dir)
	s.MaxBytes = 100
	for _, name := range []string{"notes", "snapshots", "photos"} {
		age(t, s, name, 1000*time.Hour)
	}
	ref, err := s.Save(Name{Run: "wf", Step: "s", Origin: FromTool}, strings.Repeat("x", 90))
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Len(t, data, 90, "what is not an output is not counted")

	removed, err := s.Prune(time.Now().Add(2000*time.Hour), time.Hour)
	require.NoError(t, err)
	assert.Equal(t, []string{"wf"}, removed, "only the plan folder expires")
	for _, p := range []string{"notes/todo.txt", "snapshots/plan-1/main.go", "photos/a-tool-b.jpg"} {
		assert.FileExists(t, filepath.Join(dir, p))
	}
}
