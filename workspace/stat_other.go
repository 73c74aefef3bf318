//go:build !unix

package workspace

import "io/fs"

// openNonblock is not needed where there are no fifos to block on.
const openNonblock = 0

// linkCount returns 1: the platform does not say how many names a file
// has.
func linkCount(fs.FileInfo) uint64 { return 1 }
