package secretfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.Symlink(target, p))
		return p
	}
	token := write("token", "sk-secret\n")
	pipe := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(pipe, 0o600))
	sub := filepath.Join(dir, "folder")
	require.NoError(t, os.Mkdir(sub, 0o700))

	for _, tc := range []struct {
		name, path string
		want       string
		errHas     string  // the error holds it; "" wants no error
		errIs      []error // and wraps these
	}{
		{name: "trailing newline dropped", path: token, want: "sk-secret"},
		{name: "surrounding space dropped", path: write("spaced", "  \tpass word \r\n\n"), want: "pass word"},
		{name: "no newline", path: write("bare", "whsec"), want: "whsec"},
		{name: "exactly MaxBytes", path: write("max", strings.Repeat("k", MaxBytes)), want: strings.Repeat("k", MaxBytes)},
		{name: "one byte too large", path: write("big", strings.Repeat("x", MaxBytes+1)), errHas: "is larger than 65536 bytes"},
		{name: "large only with space", path: write("bigspace", "k"+strings.Repeat(" ", MaxBytes)), errHas: "is larger than"},
		{name: "empty", path: write("empty", ""), errHas: "is empty", errIs: []error{ErrEmpty}},
		{name: "white space only", path: write("blank", " \n\t\n"), errHas: "is empty", errIs: []error{ErrEmpty}},
		{name: "missing", path: filepath.Join(dir, "absent"), errHas: "no such file", errIs: []error{fs.ErrNotExist}},
		{name: "symlink followed", path: link("link", token), want: "sk-secret"},
		{name: "relative symlink followed", path: link("rel", "token"), want: "sk-secret"},
		{name: "dangling symlink", path: link("dangling", filepath.Join(dir, "gone")), errIs: []error{fs.ErrNotExist}},
		{name: "folder", path: sub, errHas: "is not a regular file"},
		{name: "symlink to a folder", path: link("tofolder", sub), errHas: "is not a regular file"},
		{name: "named pipe, refused without waiting for a writer", path: pipe, errHas: "is not a regular file"},
		{name: "device", path: "/dev/zero", errHas: "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(tc.path)
			if tc.errHas == "" && tc.errIs == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				return
			}
			require.Error(t, err)
			assert.Empty(t, got)
			assert.Contains(t, err.Error(), tc.path, "the error names the path")
			assert.Contains(t, err.Error(), tc.errHas)
			for _, target := range tc.errIs {
				assert.True(t, errors.Is(err, target), "%v wraps %v", err, target)
			}
			assert.False(t, errors.Is(err, ErrEmpty) && !slices.Contains(tc.errIs, ErrEmpty), "only a blank file is ErrEmpty")
		})
	}
}

func TestErrorsNeverQuoteTheContent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("s3cr3t", MaxBytes)), 0o600))
	_, err := Read(p)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t")
}

func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file of mode 000")
	}
	p := filepath.Join(t.TempDir(), "locked")
	require.NoError(t, os.WriteFile(p, []byte("key\n"), 0o000))
	_, err := Read(p)
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), p)
}
