package plan

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultWorkspaceKeepsASafeID(t *testing.T) {
	for _, id := range []string{"plan-0b5e7d1c-2f3a-4c55-9d0e-1a2b3c4d5e6f", "nightly.build_7", "A"} {
		assert.Equal(t, id, DefaultWorkspace(id))
	}
}

func TestDefaultWorkspaceIsOneSafeElement(t *testing.T) {
	safe := regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	for _, id := range []string{"", ".", "..", "...", "../../etc", "a/b", "/abs", `a\b`, "x\x00y", "ünïcode",
		"sp ace", strings.Repeat("a", 1000), strings.Repeat("/", 300), "plan-" + strings.Repeat("é", 100)} {
		name := DefaultWorkspace(id)
		assert.Regexp(t, safe, name, "id %q", id)
		assert.NotContains(t, []string{"", ".", ".."}, name, "id %q", id)
		assert.LessOrEqual(t, len(name), MaxWorkspaceNameBytes+1+workspaceHashHex, "id %q", id)
		require.NoError(t, ValidWorkspaceKey(name), "id %q", id)
	}
}

func TestDefaultWorkspaceNeverShared(t *testing.T) {
	long := strings.Repeat("a", MaxWorkspaceNameBytes)
	pairs := [][2]string{
		{"a/b", "a_b"},           // replaced vs. literal
		{"a/b", "a:b"},           // two replacements of one spelling
		{long + "x", long + "y"}, // cut alike
		{".", ".."},              // dots only
		{long, long + "z"},       // at the bound vs. cut
	}
	for _, p := range pairs {
		assert.NotEqual(t, DefaultWorkspace(p[0]), DefaultWorkspace(p[1]), "%q and %q", p[0], p[1])
	}
	// An id spelt like another id's changed name is changed too.
	forged := DefaultWorkspace("a/b")
	assert.NotEqual(t, forged, DefaultWorkspace(forged))
	assert.Equal(t, DefaultWorkspace("a/b"), DefaultWorkspace("a/b"), "the same id, the same folder")
}

func TestWorkspacesOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "a", true},
		{"a", "a/sub", true},
		{"a/sub", "a", true},
		{"a/sub/deep", "a", true},
		{"a", "ab", false},
		{"ab", "a", false},
		{"a/b", "a/c", false},
		{"a", "b", false},
		{"a/", "a", true},
		{"./a", "a/x", true},
		{"", "a", true},
		{"a", "", true},
		{"/srv/ws/a", "/srv/ws", true},
		{"/srv/ws/a", "/srv/ws/ab", false},
		{"/", "/srv", true},
		{"team/shop", "team/shop-2", false},
	} {
		assert.Equal(t, tc.want, WorkspacesOverlap(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
	}
}

func TestValidWorkspaceKey(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want string // "" when valid
	}{
		{"a", ""},
		{"team/shop", ""},
		{"/srv/ws/a", ""},
		{"", "empty"},
		{".", "whole workspace root"},
		{"/", "whole workspace root"},
		{"..", "leaves"},
		{"../x", "leaves"},
		{"a/../..", "not a clean path"},
		{"a/", "not a clean path"},
		{"./a", "not a clean path"},
		{`a\b`, "backslash"},
		{"a\x00", "NUL"},
		{strings.Repeat("a", MaxWorkspaceKeyBytes+1), "bytes"},
	} {
		err := ValidWorkspaceKey(tc.key)
		if tc.want == "" {
			assert.NoError(t, err, tc.key)
			continue
		}
		require.ErrorIs(t, err, ErrWorkspaceKey, tc.key)
		assert.Contains(t, err.Error(), tc.want, tc.key)
	}
}
