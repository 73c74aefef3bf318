package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planmode/planmode/plan"
)

// defaultReadLines is how many lines read_file returns without a limit.
const defaultReadLines = 2000

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// readFileTool reads a text file, or a window of its lines.
func readFileTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name: "read_file",
			Description: fmt.Sprintf("Read a workspace text file, at most limit lines (default %d) after offset; "+
				"files over %d bytes are refused.", defaultReadLines, cfg.MaxReadBytes),
			Parameters: schema(map[string]string{
				"path":   `{"type":"string","description":"relative path"}`,
				"offset": `{"type":"integer","minimum":0,"description":"lines to skip"}`,
				"limit":  `{"type":"integer","minimum":1}`,
			}, "path"),
			ReadOnly: true,
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a readFileArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("path", a.Path); err != nil {
				return Result{}, err
			}
			if a.Offset < 0 || a.Limit < 0 {
				return Result{}, Failf("invalid argument: offset and limit must not be negative")
			}
			data, err := env.Root.ReadFile(a.Path, cfg.MaxReadBytes)
			if err != nil {
				return Result{}, err
			}
			return readWindow(string(data), a, cfg.MaxOutputBytes), nil
		},
	}
}

// readWindow cuts the requested lines out of content and caps them.
func readWindow(content string, a readFileArgs, maxOut int) Result {
	limit := a.Limit
	if limit == 0 {
		limit = defaultReadLines
	}
	lines := strings.SplitAfter(content, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	total := len(lines)
	start := min(a.Offset, total)
	end := min(start+limit, total)
	out := strings.Join(lines[start:end], "")
	out, cut := Truncate(out, maxOut)
	switch {
	case start >= total && total > 0:
		out = fmt.Sprintf("[offset %d is past the end: the file has %d lines]", a.Offset, total)
	case start > 0 || end < total || cut:
		out += fmt.Sprintf("\n[showing lines %d-%d of %d; use offset and limit to read more]", start+1, end, total)
	}
	return Result{Output: out, Truncated: cut || end < total}
}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// writeFileTool writes a file atomically, creating parent directories.
func writeFileTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name:        "write_file",
			Description: "Create or replace a workspace file (parent directories too).",
			Parameters: schema(map[string]string{
				"path":    `{"type":"string","description":"relative path"}`,
				"content": `{"type":"string","description":"the complete new content"}`,
			}, "path", "content"),
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a writeFileArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("path", a.Path); err != nil {
				return Result{}, err
			}
			return writeFile(env.Root, a.Path, a.Content, cfg.MaxReadBytes)
		},
	}
}

// writeFile writes content to p through a temporary file in the same
// directory and a rename, and records the change.
func writeFile(sb *Sandbox, p, content string, maxRead int64) (Result, error) {
	abs, err := sb.Resolve(p)
	if err != nil {
		return Result{}, err
	}
	if abs == sb.Root() {
		return Result{}, Failf("write %s: that is the workspace root, not a file", p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // write through an in-workspace symlink, not over it
	}
	change := plan.FileChange{Path: sb.Rel(abs), Op: plan.FileCreated}
	old, mode, err := existing(sb, abs, maxRead)
	if err != nil {
		return Result{}, err
	}
	if mode != 0 {
		change.Op = plan.FileModified
	} else {
		mode = 0o644
	}
	change.LinesAdded, change.LinesRemoved = lineDelta(old, content)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return Result{}, Failf("write %s: create parent directories: %w", p, cleanPathErr(err))
	}
	if err := WriteAtomic(abs, strings.NewReader(content), mode); err != nil {
		return Result{}, Failf("write %s: %w", p, cleanPathErr(err))
	}
	out := fmt.Sprintf("%s %s (%d bytes, +%d -%d lines)", change.Op, change.Path, len(content),
		change.LinesAdded, change.LinesRemoved)
	return Result{Output: out, FilesChanged: []plan.FileChange{change}}, nil
}

// existing returns the current content and mode of abs, or a zero mode when
// it does not exist. Content of files over maxRead is not read. A file with
// more than one hard link is refused: writing over its workspace name
// would be harmless, but reading it to count the changed lines would not
// (see readRegular).
func existing(sb *Sandbox, abs string, maxRead int64) (string, fs.FileMode, error) {
	rel := sb.Rel(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, Failf("stat %s: %w", rel, cleanPathErr(err))
	}
	if !fi.Mode().IsRegular() {
		return "", 0, Failf("%s is not a regular file", rel)
	}
	if err := refuseHardLinks("write", rel, fi); err != nil {
		return "", 0, err
	}
	if fi.Size() > maxRead {
		return "", fi.Mode().Perm(), nil
	}
	data, err := readRegular(abs, rel, maxRead)
	if err != nil {
		return "", 0, err
	}
	return string(data), fi.Mode().Perm(), nil
}

// WriteAtomic writes what r holds to a temporary file beside path with the
// given mode and renames it over path, so readers never see a half-written
// file. A failure leaves path as it was and no temporary file behind.
func WriteAtomic(path string, r io.Reader, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

type deleteFileArgs struct {
	Path string `json:"path"`
}

// deleteFileTool removes one file (not a directory).
func deleteFileTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name:        "delete_file",
			Description: "Delete one workspace file (not a directory).",
			Parameters: schema(map[string]string{
				"path": `{"type":"string","description":"relative path"}`,
			}, "path"),
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a deleteFileArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("path", a.Path); err != nil {
				return Result{}, err
			}
			return deleteFile(env.Root, a.Path, cfg.MaxReadBytes)
		},
	}
}

// deleteFile removes p and records the lines it held.
func deleteFile(sb *Sandbox, p string, maxRead int64) (Result, error) {
	abs, err := sb.Resolve(p)
	if err != nil {
		return Result{}, err
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return Result{}, Failf("delete %s: %w", p, cleanPathErr(err))
	}
	if fi.IsDir() {
		return Result{}, Failf("delete %s: is a directory; only files can be deleted", p)
	}
	var removed int
	if fi.Mode().IsRegular() {
		if old, _, err := existing(sb, abs, maxRead); err == nil {
			_, removed = lineDelta(old, "")
		}
	}
	if err := os.Remove(abs); err != nil {
		return Result{}, Failf("delete %s: %w", p, cleanPathErr(err))
	}
	change := plan.FileChange{Path: sb.Rel(abs), Op: plan.FileDeleted, LinesRemoved: removed}
	return Result{
		Output:       fmt.Sprintf("deleted %s (-%d lines)", change.Path, removed),
		FilesChanged: []plan.FileChange{change},
	}, nil
}
