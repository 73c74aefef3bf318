//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// openNonblock makes opening a fifo return at once instead of waiting for
// a writer; it changes nothing for a regular file.
const openNonblock = syscall.O_NONBLOCK

// linkCount returns how many names (hard links) the file fi describes
// has; 1 when the platform does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
