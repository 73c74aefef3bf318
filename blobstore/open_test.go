package blobstore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOpenForms(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.IsType(t, &Dir{}, s)
	require.Equal(t, dir, s.(*Dir).Path())

	s, err = Open("file://"+dir, Options{CacheDir: t.TempDir()})
	require.NoError(t, err)
	require.IsType(t, &Dir{}, s, "a local folder needs no cache")

	s, err = Open("s3://plans/team?endpoint=127.0.0.1:9000&insecure=true", Options{})
	require.NoError(t, err)
	require.Equal(t, "team/", s.(*S3).prefix)

	cache := filepath.Join(t.TempDir(), "cache")
	s, err = Open("s3://plans?endpoint=127.0.0.1:9000&insecure=true", Options{CacheDir: cache})
	require.NoError(t, err)
	c, ok := s.(*Cached)
	require.True(t, ok)
	require.Equal(t, cache, c.Local.Path())
	require.IsType(t, &S3{}, c.Remote)
}

func TestOpenRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, tc := range []struct{ url, says string }{
		{"", "no blob store given"},
		{"relative/store", "want an absolute path"},
		{"./store", "want an absolute path"},
		{"http://127.0.0.1:9000/plans", "want an absolute path"},
		{"file:relative", "file:///absolute/path"},
		{"file://host/srv/store", "file:///absolute/path"},
		{"file:///srv/store?x=1", "file:///absolute/path"},
		{"s3://plans?endpoint=127.0.0.1:9000&secure=false", `parameter "secure" is unknown`},
		{"s3://plans?insecure=maybe", "no boolean"},
		{"s3://plans?endpoint=a/b", "no host[:port]"},
		{"s3://Bad_Bucket", `s3 bucket "Bad_Bucket"`},
		{"s3://ab", `s3 bucket "ab"`},
		{"s3://", `s3 bucket ""`},
		{"s3://plans/a/../b", "s3 prefix"},
		{"s3://user:pw@plans", "no user"},
	} {
		_, err := Open(tc.url, Options{})
		require.ErrorContains(t, err, tc.says, tc.url)
	}
	_, err := Open("s3://plans", Options{CacheDir: "relative"})
	require.ErrorContains(t, err, "blob cache")
}
