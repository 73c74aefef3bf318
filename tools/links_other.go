//go:build !unix

package tools

import "io/fs"

// linkCount returns 1: the platform reports no link count through
// os.FileInfo.
func linkCount(fs.FileInfo) uint64 { return 1 }
