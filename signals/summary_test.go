package signals

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestStaticSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		name, goal, want string
	}{
		{"plain", "Add JWT authentication", "Add JWT authentication"},
		{"spaces collapse", "  Add   JWT\tauthentication ", "Add JWT authentication"},
		{"first line only", "Add JWT\nthen write the docs", "Add JWT …"},
		{"empty", "", ""},
		{"long is cut on a rune", long, strings.Repeat("é", (MaxStaticSummaryBytes-len("…"))/2) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StaticSummary(tt.goal)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), MaxStaticSummaryBytes)
			assert.True(t, utf8.ValidString(got))
		})
	}
}
