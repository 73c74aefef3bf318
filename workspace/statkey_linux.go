package workspace

import (
	"io/fs"
	"syscall"
)

// ctimeIno returns fi's ctime (ns) and inode.
func ctimeIno(fi fs.FileInfo) (int64, uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Ctim.Nano(), st.Ino, true
}
