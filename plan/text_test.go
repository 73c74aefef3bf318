package plan

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestTruncateBytes(t *testing.T) {
	cases := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"fits", "abc", 3, "abc"},
		{"cut with ellipsis", "abcdefgh", 6, "abc…"},
		{"never splits a rune", "aéééé", 5, "a…"},
		{"no room for the ellipsis", "abcdef", 2, "ab"},
		{"nothing", "abc", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := TruncateBytes(c.in, c.n)
			assert.Equal(t, c.want, got)
			assert.LessOrEqual(t, len(got), max(c.n, 0))
			assert.True(t, utf8.ValidString(got))
		})
	}
}
