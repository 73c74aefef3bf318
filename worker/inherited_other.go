//go:build !unix

package main

// sealInheritedFiles does nothing where commands do not run sandboxed.
func sealInheritedFiles() {}
