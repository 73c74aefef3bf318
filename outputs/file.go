package outputs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrFull is wrapped by the error of a Save or Commit that kept nothing
// because the plan's folder or the whole store is full. The output's head
// is still in workflow history, so a caller may go on without a path.
var ErrFull = errors.New("output store full")

// cut says why a file keeps less than it was given.
type cut int

// Why a file was cut.
const (
	cutNone  cut = iota
	cutFile      // the file reached Store.Limit
	cutPlan      // the plan's folder reached Store.MaxPlanBytes
	cutStore     // the store reached Store.MaxBytes with nothing left to remove
)

// reason says, for a note or an error, which limit cut a file.
func (c cut) reason() string {
	switch c {
	case cutPlan:
		return "this plan's output store is full (outputs.maxPlanBytes)"
	case cutStore:
		return "the output store is full (outputs.maxBytes)"
	}
	return ""
}

// File is one output being written: a temporary file beside its final
// name, created on the first write that keeps something and renamed into
// place by Commit, so a reader never sees half a file and a retry
// replaces the whole.
type File struct {
	store  *Store
	name   Name
	folder string
	f      *os.File
	active bool // counted among the folder's writers
	// replaces is the size of the file this one will replace (a retry's),
	// whose room it may use.
	replaces int64
	written  int64
	dropped  int64
	cut      cut
	err      error
}

// Begin starts the file of n; nothing touches the disk before a write.
func (s *Store) Begin(n Name) *File { return &File{store: s, name: n, folder: folder(n)} }

// Write appends what the limits let it keep of p and counts the rest:
// once one limit cuts the file, nothing more is kept. It reports all of p
// taken, so that a command streaming into it never sees an error from the
// store's limits. The first error of the disk sticks: later writes return
// it and Commit fails.
func (o *File) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if !o.active {
		o.start()
	}
	grant := o.grant(int64(len(p)))
	o.dropped += int64(len(p)) - grant
	if grant == 0 && (o.f != nil || len(p) > 0) {
		return len(p), nil
	}
	if o.f == nil {
		if o.err = o.open(); o.err != nil {
			o.store.release(o.folder, grant)
			return 0, o.err
		}
	}
	n, err := o.f.Write(p[:grant])
	o.written += int64(n)
	if err != nil {
		o.store.release(o.folder, grant-int64(n))
		o.err = fmt.Errorf("write full output: %w", err)
		return n, o.err
	}
	return len(p), nil
}

// start counts the file among its folder's writers and lets it use the
// room of the file it will replace.
func (o *File) start() {
	o.store.writing(o.folder)
	o.active = true
	if fi, err := os.Lstat(o.store.path(o.name)); err == nil && fi.Mode().IsRegular() {
		o.replaces = fi.Size()
		o.store.release(o.folder, o.replaces)
	}
}

// grant returns how many of n more bytes the file keeps, counted against
// its plan's folder and the store, and records which limit cut it.
func (o *File) grant(n int64) int64 {
	if o.cut != cutNone {
		return 0
	}
	want := n
	if room := o.store.limit() - o.written; want > room {
		want, o.cut = max(room, 0), cutFile
	}
	if want == 0 {
		return 0
	}
	got, why := o.store.reserve(o.folder, want)
	if got < want {
		o.cut = why
	}
	return got
}

// open creates the temporary file (0600) in the output's folder (0700).
func (o *File) open() error {
	final := o.store.path(o.name)
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	// A folder an earlier version made 0755 is closed now.
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(final)+".*.tmp")
	if err != nil {
		return fmt.Errorf("output file: %w", err)
	}
	o.f = f
	return nil
}

// Commit puts the file in place and returns its path. When nothing was
// streamed it writes fallback (a tool whose whole output is its result);
// when a limit cut the stream it ends the file with a note saying which
// and how much was not kept. When a full plan folder or store let it keep
// nothing, it leaves no file and returns an error wrapping ErrFull. On
// failure nothing is left behind.
func (o *File) Commit(fallback string) (string, error) {
	if o.f == nil && o.err == nil && o.cut == cutNone {
		_, _ = o.Write([]byte(fallback))
	}
	if o.err == nil && o.f == nil {
		o.err = fmt.Errorf("full output of %s not kept: %s: %w", o.name.Step, o.cut.reason(), ErrFull)
	}
	if o.err == nil && o.dropped > 0 {
		o.note()
	}
	if o.err != nil {
		o.Discard()
		return "", o.err
	}
	final := o.store.path(o.name)
	if err := o.f.Close(); err != nil {
		o.Discard()
		return "", fmt.Errorf("output file: %w", err)
	}
	if err := os.Rename(o.f.Name(), final); err != nil {
		o.Discard()
		return "", fmt.Errorf("output file: %w", err)
	}
	o.f, o.replaces = nil, 0
	o.done()
	return final, nil
}

// note ends a cut file with what was kept, what was not and why. Its few
// bytes are counted but not refused, so a file cut by a full plan still
// says so.
func (o *File) note() {
	why := ""
	if r := o.cut.reason(); r != "" {
		why = ": " + r
	}
	n, err := fmt.Fprintf(o.f, "\n… [full output stopped at %d bytes%s; %d more bytes not kept]\n", o.written, why, o.dropped)
	o.store.add(o.folder, int64(n))
	o.written += int64(n)
	if err != nil {
		o.err = fmt.Errorf("write full output: %w", err)
	}
}

// Discard drops the temporary file, if any, and frees what it held; a nil
// o does nothing.
func (o *File) Discard() {
	if o == nil {
		return
	}
	if o.f != nil {
		_ = o.f.Close()
		_ = os.Remove(o.f.Name())
		o.f = nil
		o.store.release(o.folder, o.written)
	}
	o.done()
}

// done tells the store this file no longer writes in its folder; the
// file it was to replace, still there, counts again.
func (o *File) done() {
	if o.active {
		o.store.add(o.folder, o.replaces)
		o.store.finished(o.folder)
		o.active, o.replaces = false, 0
	}
}
