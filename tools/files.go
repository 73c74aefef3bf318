package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
			// Every agent turn that may read sends this schema: one sentence,
			// the default in the schema, a note only where a name is not
			// enough (offset counts lines, not bytes).
			Description: fmt.Sprintf("Read a text file (relative path, at most %s).", byteSize(cfg.MaxReadBytes)),
			Parameters: schema(map[string]string{
				"path":   `{"type":"string"}`,
				"offset": `{"type":"integer","minimum":0,"description":"lines to skip"}`,
				"limit":  fmt.Sprintf(`{"type":"integer","minimum":1,"default":%d}`, defaultReadLines),
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
			Description: "Create or replace a whole file (relative path, folders made).",
			Parameters: schema(map[string]string{
				"path":    `{"type":"string"}`,
				"content": `{"type":"string"}`,
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
			return writeFile(env.Root, a.Path, a.Content, cfg)
		},
	}
}

// writeFile writes content to p through a temporary file in the same
// directory and a rename, and records the change. A symlink inside the
// workspace is written through, not over. A write that would pass
// cfg.Limits is refused.
func writeFile(sb *Sandbox, p, content string, cfg Config) (Result, error) {
	r, err := sb.open()
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	name, err := sb.resolve(r, p, true)
	if err != nil {
		return Result{}, err
	}
	if name == "." {
		return Result{}, Failf("write %s: that is the workspace root, not a file", p)
	}
	change := plan.FileChange{Path: filepath.ToSlash(name), Op: plan.FileCreated}
	old, mode, size, err := existing(r, name, cfg.MaxReadBytes)
	if err != nil {
		return Result{}, err
	}
	if err := admitWrite(r, cfg.Limits, p, int64(len(content)), size); err != nil {
		return Result{}, err
	}
	if mode != 0 {
		change.Op = plan.FileModified
	} else {
		mode = 0o644
	}
	change.LinesAdded, change.LinesRemoved = lineDelta(old, content)
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return Result{}, fileErr("write", p, err)
	}
	if err := writeAtomic(r, name, strings.NewReader(content), mode); err != nil {
		return Result{}, fileErr("write", p, err)
	}
	out := fmt.Sprintf("%s %s (%d bytes, +%d -%d lines)", change.Op, change.Path, len(content),
		change.LinesAdded, change.LinesRemoved)
	return Result{Output: out, FilesChanged: []plan.FileChange{change}}, nil
}

// existing returns the current content, mode and size of the file name
// in r, or a zero mode when it does not exist. Content of files over
// maxRead is not read. A file with more than one hard link is refused: writing over
// its workspace name would be harmless, but reading it to count the
// changed lines would not (see openRegular).
func existing(r *os.Root, name string, maxRead int64) (string, fs.FileMode, int64, error) {
	rel := filepath.ToSlash(name)
	f, fi, err := openRegular(r, name, rel, "write")
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, 0, nil
	}
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	if fi.Size() > maxRead {
		return "", fi.Mode().Perm(), fi.Size(), nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRead))
	if err != nil {
		return "", 0, 0, fileErr("write", rel, err)
	}
	return string(data), fi.Mode().Perm(), fi.Size(), nil
}

// admitWrite returns a [*ToolError] when writing n bytes to p in r, over a
// file of old bytes, would pass l: a file over the file size limit, more
// growth than one call may make, or a workspace over its size. A write
// that does not grow the workspace passes, even over its size: it may be
// the cleanup.
func admitWrite(r *os.Root, l Limits, p string, n, old int64) error {
	if n > l.FileBytes {
		return Failf("write %s: %s is over the file size limit of %s (tools.limits.fileBytes)", p, byteSize(n),
			byteSize(l.FileBytes))
	}
	growth := n - old
	switch {
	case growth <= 0:
		return nil
	case growth > l.GrowthBytes:
		return Failf("write %s: the write would grow the workspace by %s, over the limit of %s "+
			"(tools.limits.growthBytes)", p, byteSize(growth), byteSize(l.GrowthBytes))
	}
	size, err := measureRoot(r)
	if err != nil {
		return err
	}
	if size+growth > l.WorkspaceBytes {
		return Failf("write %s: the workspace holds %s, and the write would take it to %s, over the limit of %s "+
			"(tools.limits.workspaceBytes)", p, byteSize(size), byteSize(size+growth), byteSize(l.WorkspaceBytes))
	}
	return nil
}

// WriteAtomic writes what r holds to a temporary file beside path with the
// given mode and renames it over path, so readers never see a half-written
// file. A failure leaves path as it was and no temporary file behind.
func WriteAtomic(path string, r io.Reader, mode fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return writeAtomic(root, filepath.Base(path), r, mode)
}

// writeAtomic is [WriteAtomic] for the file name in root: the temporary
// file is created (never opened if it exists) and renamed through root,
// so neither can land outside it, and the rename replaces the name, never
// writing into a file a symlink or hard link there leads to.
func writeAtomic(root *os.Root, name string, r io.Reader, mode fs.FileMode) error {
	dir, base := filepath.Split(name)
	var tmp string
	var f *os.File
	for try := 0; ; try++ {
		tmp = filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return err
		}
	}
	_, err := io.Copy(f, r)
	if err == nil {
		err = f.Chmod(mode) // on the descriptor: a name swapped meanwhile is not changed
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
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

// deleteFile removes p and records the lines it held. A symlink is
// removed itself, whatever it leads to.
func deleteFile(sb *Sandbox, p string, maxRead int64) (Result, error) {
	r, err := sb.open()
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	name, err := sb.resolve(r, p, false)
	if err != nil {
		return Result{}, err
	}
	afterResolve(name)
	fi, err := r.Lstat(name)
	if err != nil {
		return Result{}, fileErr("delete", p, err)
	}
	if fi.IsDir() {
		return Result{}, Failf("delete %s: is a directory; only files can be deleted", p)
	}
	var removed int
	if fi.Mode().IsRegular() {
		if old, _, _, err := existing(r, name, maxRead); err == nil {
			_, removed = lineDelta(old, "")
		}
	}
	if err := r.Remove(name); err != nil {
		return Result{}, fileErr("delete", p, err)
	}
	change := plan.FileChange{Path: filepath.ToSlash(name), Op: plan.FileDeleted, LinesRemoved: removed}
	return Result{
		Output:       fmt.Sprintf("deleted %s (-%d lines)", change.Path, removed),
		FilesChanged: []plan.FileChange{change},
	}, nil
}
