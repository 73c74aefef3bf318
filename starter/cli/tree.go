package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// CommandTree returns the commands Run executes, with their flags, help
// and examples, for reading: generating documentation, or a test that
// runs every example. It is bound to empty streams; run commands through
// Run.
func CommandTree() *cobra.Command {
	return newRootCmd(newDeps(strings.NewReader(""), io.Discard, io.Discard))
}
