package cli

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// TestEveryCommandHasAnExample: the examples are what an operator copies;
// testsuite runs each against a server.
func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			assert.NotEmpty(t, sub.Example, "planmode %s has no example", sub.Name())
			assert.Contains(t, sub.Example, "planmode "+sub.Name(), "planmode %s's examples run it", sub.Name())
			walk(sub)
		}
	}
	walk(CommandTree())
}
