package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocShowsThisProgram keeps docs/clients.md's Go example equal to this
// program, so the doc shows code that compiles (and that testsuite runs
// against a server) and cannot drift from it.
func TestDocShowsThisProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	doc, err := os.ReadFile("../../docs/clients.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), "```go\n"+string(src)+"```\n",
		"docs/clients.md's Go block must be starter/goclient/main.go, word for word: copy the file into the doc")
}
