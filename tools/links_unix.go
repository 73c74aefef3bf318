//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// linkCount returns how many names (hard links) the file fi describes has;
// 1 when the platform does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// openNonblock opens a named pipe without waiting for a writer, and a
// device without waiting for it to be ready; regular files ignore it.
const openNonblock = syscall.O_NONBLOCK | syscall.O_NOCTTY
