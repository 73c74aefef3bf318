package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/activity"
)

// DefaultOutputFileLimit bounds one kept output file, so that a command
// that prints without end cannot fill the disk. What goes beyond it is
// counted in a closing note.
const DefaultOutputFileLimit int64 = 64 << 20

// OutputKind names what a kept output came from; it is part of the file
// name.
type OutputKind string

// Output kinds.
const (
	OutputLLM  OutputKind = "llm"
	OutputTool OutputKind = "tool"
)

// maxNamePart bounds one sanitized part of an output file's path.
const maxNamePart = 96

// outputDeps holds the output store; nil keeps no full outputs.
type outputDeps struct {
	outputs *OutputStore
}

// WithOutputStore keeps the whole of every output that is truncated for
// workflow history in a file under dir, and puts the file's absolute path
// in the result's OutputRef. An empty dir keeps nothing, as does leaving
// the option out. With several workers dir should be a shared volume
// mounted at the same path on each, so that every ref can be read
// wherever the plan is looked at.
func WithOutputStore(dir string) Option {
	return func(a *Activities) {
		if strings.TrimSpace(dir) == "" {
			a.outputs = nil
			return
		}
		a.outputs = NewOutputStore(dir)
	}
}

// OutputStore keeps full outputs as files named
// <dir>/<workflow id>/<step id>-<kind>-<n>.txt. The name depends only on
// the activity (or, outside one, on its input), so a retry of the same
// activity replaces the same file, atomically.
type OutputStore struct {
	dir   string
	limit int64
}

// NewOutputStore returns a store in dir, made absolute so that refs are
// absolute paths. The directory is created on first use.
func NewOutputStore(dir string) *OutputStore {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &OutputStore{dir: dir, limit: DefaultOutputFileLimit}
}

// Dir returns the store's absolute directory.
func (s *OutputStore) Dir() string { return s.dir }

// outputName is where one output goes: the workflow (or plan) folder and
// the file name's parts.
type outputName struct {
	run  string
	step string
	kind OutputKind
	seq  string
}

// outputNameFor names an output of step stepID. Inside an activity the
// folder is the workflow id and n is the activity id with the start of the
// run id, which a retry keeps and a later activity or run does not share;
// outside one (a direct call) the folder is planID and n is fallbackSeq,
// else 1.
func outputNameFor(ctx context.Context, planID, stepID string, kind OutputKind, fallbackSeq string) outputName {
	n := outputName{run: planID, step: stepID, kind: kind, seq: fallbackSeq}
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		n.run = info.WorkflowExecution.ID
		n.seq = info.ActivityID
		if run := info.WorkflowExecution.RunID; run != "" {
			n.seq += "-" + run[:min(8, len(run))]
		}
	}
	if n.run == "" {
		n.run = "plan"
	}
	if n.step == "" {
		n.step = "step"
	}
	if n.seq == "" {
		n.seq = "1"
	}
	return n
}

// path returns the file of n.
func (s *OutputStore) path(n outputName) string {
	file := fmt.Sprintf("%s-%s-%s.txt", safeName(n.step), safeName(string(n.kind)), safeName(n.seq))
	return filepath.Join(s.dir, safeName(n.run), file)
}

// save writes text whole to the file of n, replacing it atomically, and
// returns the file's path.
func (s *OutputStore) save(n outputName, text string) (string, error) {
	f := s.begin(n)
	if _, err := f.Write([]byte(text)); err != nil {
		f.discard()
		return "", err
	}
	return f.commit("")
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

// keepOutput saves the whole text of a truncated output and returns its
// path, or "" when no store is configured or the file cannot be written:
// the truncated output stands either way, and a failure is logged.
func (a *Activities) keepOutput(ctx context.Context, n outputName, text string) string {
	if a.outputs == nil {
		return ""
	}
	ref, err := a.outputs.save(n, text)
	if err != nil {
		logOutputError(ctx, err)
		return ""
	}
	return ref
}

// logOutputError logs that a full output could not be kept.
func logOutputError(ctx context.Context, err error) {
	if activity.IsActivity(ctx) {
		activity.GetLogger(ctx).Warn("full output not kept", "error", err)
	}
}

// outputFile is one output being written: a temporary file beside its
// final name, created on the first write and renamed into place by commit,
// so a reader never sees half a file and a retry replaces the whole.
type outputFile struct {
	store   *OutputStore
	name    outputName
	f       *os.File
	written int64
	dropped int64
	err     error
}

// begin starts the file of n; nothing touches the disk before a write.
func (s *OutputStore) begin(n outputName) *outputFile { return &outputFile{store: s, name: n} }

// Write appends p up to the store's limit and counts what goes beyond it.
// The first error sticks: later writes return it and commit fails.
func (o *outputFile) Write(p []byte) (int, error) {
	if o.err == nil && o.f == nil {
		o.err = o.open()
	}
	if o.err != nil {
		return 0, o.err
	}
	keep := p[:min(int64(len(p)), max(o.store.limit-o.written, 0))]
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
func (o *outputFile) open() error {
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

// commit puts the file in place and returns its path. When nothing was
// streamed it writes fallback (a tool whose whole output is its result);
// when the limit cut the stream it ends the file with a note saying so.
func (o *outputFile) commit(fallback string) (string, error) {
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
		o.discard()
		return "", o.err
	}
	tmp, final := o.f.Name(), o.store.path(o.name)
	if err := o.f.Chmod(0o644); err != nil {
		o.discard()
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

// discard drops the temporary file, if any; a nil o does nothing.
func (o *outputFile) discard() {
	if o == nil || o.f == nil {
		return
	}
	_ = o.f.Close()
	_ = os.Remove(o.f.Name())
	o.f = nil
}
