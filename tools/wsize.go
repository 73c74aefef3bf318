package tools

import (
	"os"
	"path/filepath"
)

// maxMeasureEntries bounds the entries one measure of a workspace looks
// at, so that a tree of millions of files cannot hold the worker: beyond
// it, the size found is less than the workspace holds.
const maxMeasureEntries = 1 << 20

// measure returns the bytes the workspace's regular files hold: their
// sizes, what a snapshot of it copies (a sparse file counts whole).
func (s *Sandbox) measure() (int64, error) {
	r, err := s.open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return measureRoot(r)
}

// measureRoot is measure on the open root r. It goes down into what lstat
// says is a directory, never a symlink, through r (which follows a
// symlink swapped in meanwhile only inside the workspace: that may count
// a file twice, never one outside), reading each directory a batch at a
// time. An entry that goes away while it looks is skipped.
func measureRoot(r *os.Root) (int64, error) {
	var size int64
	seen := 0
	dirs := []string{"."}
	for len(dirs) > 0 && seen < maxMeasureEntries {
		dir := dirs[len(dirs)-1]
		dirs = dirs[:len(dirs)-1]
		f, err := r.OpenFile(dir, os.O_RDONLY|openNonblock, 0)
		if err != nil {
			if dir == "." {
				return 0, fileErr("measure", ".", err)
			}
			continue
		}
		for seen < maxMeasureEntries {
			batch, err := f.ReadDir(1024)
			for _, d := range batch {
				seen++
				switch {
				case d.Type().IsRegular():
					if fi, err := d.Info(); err == nil {
						size += fi.Size()
					}
				case d.IsDir():
					dirs = append(dirs, filepath.Join(dir, d.Name()))
				}
			}
			if err != nil {
				break // the end, or a directory that went away
			}
		}
		f.Close()
	}
	return size, nil
}
