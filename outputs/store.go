package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultFileLimit bounds one kept output file, so that a command that
// prints without end cannot fill the disk. What goes beyond it is counted
// in a closing note.
const DefaultFileLimit int64 = 64 << 20

// Kind names what a kept output came from; it is part of the file name.
type Kind string

// Output kinds.
const (
	KindLLM  Kind = "llm"
	KindTool Kind = "tool"
)

// maxNamePart bounds one sanitized part of an output file's path.
const maxNamePart = 96

// Store keeps full outputs as files named <dir>/<run>/<step>-<kind>-<seq>.txt
// (see Name). Every file is written beside its final name and renamed
// into place, so a reader never sees half a file and writing the same
// name again replaces the whole.
type Store struct {
	dir string
	// Limit bounds one file, in bytes; zero means DefaultFileLimit.
	Limit int64
}

// New returns a store in dir, made absolute so that the paths it returns
// are absolute. The directory is created on first use.
func New(dir string) *Store {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &Store{dir: dir}
}

// Dir returns the store's absolute directory.
func (s *Store) Dir() string { return s.dir }

// Name is where one output goes: the run's folder (a workflow or plan id)
// and the file name's parts, the step, the kind and a sequence that tells
// apart the outputs of one step. Each part is made a harmless path
// element; an empty part gets a default.
type Name struct {
	Run  string
	Step string
	Kind Kind
	Seq  string
}

// limit returns the file size limit.
func (s *Store) limit() int64 {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultFileLimit
}

// path returns the file of n.
func (s *Store) path(n Name) string {
	run, step, seq := n.Run, n.Step, n.Seq
	if run == "" {
		run = "plan"
	}
	if step == "" {
		step = "step"
	}
	if seq == "" {
		seq = "1"
	}
	file := fmt.Sprintf("%s-%s-%s.txt", safeName(step), safeName(string(n.Kind)), safeName(seq))
	return filepath.Join(s.dir, safeName(run), file)
}

// Save writes text whole to the file of n, replacing it atomically, and
// returns the file's path.
func (s *Store) Save(n Name, text string) (string, error) {
	f := s.Begin(n)
	if _, err := f.Write([]byte(text)); err != nil {
		f.Discard()
		return "", err
	}
	return f.Commit("")
}

// safeName makes s one harmless path element: letters, digits, '.', '_'
// and '-' only, no leading dot, at most maxNamePart bytes. A name that had
// to change gets a short hash of the original, so two different ids do not
// end up in the same file.
func safeName(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r < 128 && (r == '-' || r == '_' || r == '.' && i > 0 ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == s && s != "" && len(s) <= maxNamePart {
		return s
	}
	if out == "" {
		out = "_"
	}
	sum := sha256.Sum256([]byte(s))
	return out[:min(len(out), maxNamePart-9)] + "-" + hex.EncodeToString(sum[:4])
}

// File is one output being written: a temporary file beside its final
// name, created on the first write and renamed into place by Commit, so a
// reader never sees half a file and a retry replaces the whole.
type File struct {
	store   *Store
	name    Name
	f       *os.File
	written int64
	dropped int64
	err     error
}

// Begin starts the file of n; nothing touches the disk before a write.
func (s *Store) Begin(n Name) *File { return &File{store: s, name: n} }

// Write appends p up to the store's limit and counts what goes beyond it.
// The first error sticks: later writes return it and Commit fails.
func (o *File) Write(p []byte) (int, error) {
	if o.err == nil && o.f == nil {
		o.err = o.open()
	}
	if o.err != nil {
		return 0, o.err
	}
	keep := p[:min(int64(len(p)), max(o.store.limit()-o.written, 0))]
	o.dropped += int64(len(p) - len(keep))
	n, err := o.f.Write(keep)
	o.written += int64(n)
	if err != nil {
		o.err = fmt.Errorf("write full output: %w", err)
		return n, o.err
	}
	return len(p), nil
}

// open creates the temporary file in the output's folder.
func (o *File) open() error {
	final := o.store.path(o.name)
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
// when the limit cut the stream it ends the file with a note saying so.
// On failure nothing is left behind.
func (o *File) Commit(fallback string) (string, error) {
	if o.f == nil && o.err == nil {
		_, _ = o.Write([]byte(fallback))
	}
	if o.err == nil && o.dropped > 0 {
		if _, err := fmt.Fprintf(o.f, "\n… [full output stopped at %d bytes; %d more bytes not kept]\n", o.written,
			o.dropped); err != nil {
			o.err = fmt.Errorf("write full output: %w", err)
		}
	}
	if o.err != nil {
		o.Discard()
		return "", o.err
	}
	tmp, final := o.f.Name(), o.store.path(o.name)
	if err := o.f.Chmod(0o644); err != nil {
		o.Discard()
		return "", fmt.Errorf("output file: %w", err)
	}
	if err := o.f.Close(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("output file: %w", err)
	}
	o.f = nil
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("output file: %w", err)
	}
	return final, nil
}

// Discard drops the temporary file, if any; a nil o does nothing.
func (o *File) Discard() {
	if o == nil || o.f == nil {
		return
	}
	_ = o.f.Close()
	_ = os.Remove(o.f.Name())
	o.f = nil
}
