package config

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeKeys returns the keys named in the first column of README.md's
// Configuration table, lower-cased, with `a.{b,c}` spelt out; names that
// stand for many keys (`llm.phases.<phase>.model`, `.temperature`) are
// left out.
func readmeKeys(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n## Configuration\n")
	require.True(t, ok, "README.md has a Configuration section")
	section, _, _ = strings.Cut(section, "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	braces := regexp.MustCompile(`^(.*)\{([^}]*)\}$`)
	var keys []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			name := m[1]
			if strings.ContainsAny(name, "<") || strings.HasPrefix(name, ".") {
				continue
			}
			if b := braces.FindStringSubmatch(name); b != nil {
				for _, leaf := range strings.Split(b[2], ",") {
					keys = append(keys, strings.ToLower(b[1]+leaf))
				}
				continue
			}
			keys = append(keys, strings.ToLower(name))
		}
	}
	return keys
}

// TestReadmeListsEveryKey keeps README.md's Configuration table and the
// keys Load reads in step: every key is documented, and every key the
// table names is read.
func TestReadmeListsEveryKey(t *testing.T) {
	documented := map[string]bool{}
	for _, k := range readmeKeys(t) {
		documented[k] = true
	}
	leaves, _ := knownKeys()
	for k := range leaves {
		assert.True(t, documented[k], "%s is missing from README.md's Configuration table", k)
	}
	for k := range documented {
		assert.True(t, leaves[k], "README.md's Configuration table names %s, which no setting reads", k)
	}
}
