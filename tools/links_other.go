//go:build !unix

package tools

import "io/fs"

// linkCount returns 1: the platform reports no link count through
// os.FileInfo.
func linkCount(fs.FileInfo) uint64 { return 1 }

// openNonblock is 0: named pipes that block an open are a Unix matter.
const openNonblock = 0
