package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultFileLimit bounds one kept output file, so that a command that
// prints without end cannot fill the disk. What goes beyond it is counted
// in a closing note.
const DefaultFileLimit int64 = 64 << 20

// Origin names what a kept output came from; it is part of the file name.
type Origin string

// Origins of kept outputs.
const (
	FromModel Origin = "llm"
	FromTool  Origin = "tool"
)

// maxNamePart bounds one sanitized part of an output file's path.
const maxNamePart = 96

// Store keeps full outputs as files named <dir>/<run>/<step>-<origin>-<seq>.txt
// (see Name). Every file is written beside its final name and renamed
// into place, so a reader never sees half a file and writing the same
// name again replaces the whole. Folders are 0700 and files 0600: an
// output is read through the path its step's result holds, by the
// worker's user, and by no other.
//
// The store is bounded three ways: one file (Limit), one plan's folder
// (MaxPlanBytes) and the whole store (MaxBytes), which makes room by
// removing the folders written longest ago; Prune removes expired ones.
// Set the limits before the first write; a Store is safe for concurrent
// use after that. The counts are this process's: several workers sharing
// a folder each learn what is on disk when they first use it and then
// count their own writes.
type Store struct {
	dir string
	// Limit bounds one file, in bytes; zero means DefaultFileLimit.
	Limit int64
	// MaxPlanBytes bounds one plan's folder, in bytes; zero means
	// DefaultMaxPlanBytes.
	MaxPlanBytes int64
	// MaxBytes bounds the whole store, in bytes; zero means
	// DefaultMaxBytes.
	MaxBytes int64

	ledger
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
// and the file name's parts, the step, the origin and a sequence that tells
// apart the outputs of one step. Each part is made a harmless path
// element; an empty part gets a default.
type Name struct {
	Run    string
	Step   string
	Origin Origin
	Seq    string
}

// limit returns the file size limit.
func (s *Store) limit() int64 {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultFileLimit
}

// folder returns the name of n's folder in the store.
func folder(n Name) string {
	if n.Run == "" {
		return "plan"
	}
	return safeName(n.Run)
}

// path returns the file of n.
func (s *Store) path(n Name) string {
	step, seq := n.Step, n.Seq
	if step == "" {
		step = "step"
	}
	if seq == "" {
		seq = "1"
	}
	file := fmt.Sprintf("%s-%s-%s.txt", safeName(step), safeName(string(n.Origin)), safeName(seq))
	return filepath.Join(s.dir, folder(n), file)
}

// Save writes text whole to the file of n, replacing it atomically, and
// returns the file's path. Past a limit the file ends with a note saying
// what was not kept; when nothing could be kept (the plan's folder or the
// store is full) it writes nothing and returns an error that wraps
// ErrFull.
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
