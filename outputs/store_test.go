package outputs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSafeName(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"plan-42", "plan-42"},
		{"s1.b_2", "s1.b_2"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, safeName(tc.in))
	}
	for _, in := range []string{"", "..", ".hidden", "a/b", "a\\b", "über", "x y", strings.Repeat("z", 200)} {
		got := safeName(in)
		assert.Regexp(t, `^[A-Za-z0-9_-][A-Za-z0-9._-]*-[0-9a-f]{8}$`, got, "input %q", in)
		assert.LessOrEqual(t, len(got), maxNamePart)
	}
	assert.NotEqual(t, safeName("a/b"), safeName("a_b"), "a changed name does not meet one that needed no change")
	assert.NotEqual(t, safeName("a/b"), safeName("a:b"))
}

func TestPathsStayInside(t *testing.T) {
	s := New("relative/outputs")
	require.True(t, filepath.IsAbs(s.Dir()))
	p := s.path(Name{Run: "../../etc", Step: "../passwd", Origin: FromTool, Seq: "/x"})
	rel, err := filepath.Rel(s.Dir(), p)
	require.NoError(t, err)
	assert.False(t, strings.HasPrefix(rel, ".."), "path %s leaves the store", p)
	assert.Equal(t, 1, strings.Count(rel, string(filepath.Separator)), "one folder per workflow: %s", rel)
}

func TestSaveReplacesTheWholeFile(t *testing.T) {
	s := New(t.TempDir())
	n := Name{Run: "wf-1", Step: "s1", Origin: FromModel, Seq: "7"}
	ref, err := s.Save(n, "first, and longer")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(s.Dir(), "wf-1", "s1-llm-7.txt"), ref)
	ref2, err := s.Save(n, "second")
	require.NoError(t, err)
	assert.Equal(t, ref, ref2, "the same name is the same file")
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Equal(t, "second", string(data))

	defaults := s.path(Name{Origin: FromTool})
	assert.Equal(t, filepath.Join(s.Dir(), "plan", "step-tool-1.txt"), defaults, "empty parts get defaults")
}

func TestFileStopsAtTheLimit(t *testing.T) {
	s := New(t.TempDir())
	s.Limit = 10
	f := s.Begin(Name{Run: "r", Step: "s", Origin: FromTool, Seq: "c1"})
	for _, chunk := range []string{"0123456", "789abc", "def"} {
		n, err := f.Write([]byte(chunk))
		require.NoError(t, err)
		assert.Equal(t, len(chunk), n, "a write past the limit still reports all of it taken")
	}
	ref, err := f.Commit("unused: something was streamed")
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Equal(t, "0123456789\n… [full output stopped at 10 bytes; 6 more bytes not kept]\n", string(data))
	entries, err := os.ReadDir(filepath.Dir(ref))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestFileFallbackAndDiscard(t *testing.T) {
	s := New(t.TempDir())
	ref, err := s.Begin(Name{Run: "r", Step: "s", Origin: FromTool}).Commit("the tool's own output")
	require.NoError(t, err)
	data, err := os.ReadFile(ref)
	require.NoError(t, err)
	assert.Equal(t, "the tool's own output", string(data), "nothing streamed: the fallback is kept")

	f := s.Begin(Name{Run: "r", Step: "s2", Origin: FromTool})
	_, err = f.Write([]byte("partial"))
	require.NoError(t, err)
	f.Discard()
	_, err = os.Stat(s.path(Name{Run: "r", Step: "s2", Origin: FromTool}))
	assert.True(t, errors.Is(err, os.ErrNotExist))
	entries, err := os.ReadDir(filepath.Join(s.Dir(), "r"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the discarded temporary file is gone")
	var none *File
	none.Discard() // a nil file does nothing
}
