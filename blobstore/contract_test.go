package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// storeContract is what every Store does alike; each implementation's
// test runs it over a fresh store.
func storeContract(t *testing.T, newStore func(t *testing.T) Store) {
	ctx := context.Background()
	t.Run("put get stat", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "a/b.txt", "hello")
		require.Equal(t, "hello", get(t, s, "a/b.txt"))
		info, err := s.Stat(ctx, "a/b.txt")
		require.NoError(t, err)
		require.Equal(t, "a/b.txt", info.Key)
		require.EqualValues(t, 5, info.Size)
		require.False(t, info.ModTime.IsZero())
	})
	t.Run("empty blob", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "empty", "")
		require.Equal(t, "", get(t, s, "empty"))
	})
	t.Run("list by prefix", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"blobs/aa/1", "blobs/ab/2", "manifests/m", "pins/p/m"} {
			put(t, s, k, k)
		}
		require.Equal(t, []string{"blobs/aa/1", "blobs/ab/2"}, list(t, s, "blobs/"))
		require.Equal(t, []string{"blobs/aa/1", "blobs/ab/2"}, list(t, s, "blobs/a"))
		require.Equal(t, []string{"blobs/aa/1"}, list(t, s, "blobs/aa"))
		require.Equal(t, []string{"blobs/aa/1", "blobs/ab/2", "manifests/m", "pins/p/m"}, list(t, s, ""))
		require.Empty(t, list(t, s, "outputs/"))
		stop := errors.New("stop")
		calls := 0
		err := s.List(ctx, "", func(Info) error { calls++; return stop })
		require.ErrorIs(t, err, stop)
		require.Equal(t, 1, calls)
	})
	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "blobs/aa/1", "x")
		put(t, s, "blobs/aa/2", "y")
		require.NoError(t, s.Delete(ctx, "blobs/aa/1"))
		_, err := s.Get(ctx, "blobs/aa/1")
		require.ErrorIs(t, err, ErrNotFound)
		require.Equal(t, []string{"blobs/aa/2"}, list(t, s, "blobs/"))
		require.NoError(t, s.Delete(ctx, "blobs/aa/1"), "deleting a missing blob")
		require.NoError(t, s.Delete(ctx, "blobs/aa/2"))
		require.Empty(t, list(t, s, ""))
		put(t, s, "blobs/aa/3", "z") // the folders a Delete dropped come back
		require.Equal(t, "z", get(t, s, "blobs/aa/3"))
	})
	t.Run("overwrite", func(t *testing.T) {
		s := newStore(t)
		put(t, s, "k", "first")
		put(t, s, "k", "second, longer")
		require.Equal(t, "second, longer", get(t, s, "k"))
		require.Equal(t, []string{"k"}, list(t, s, ""))
	})
	t.Run("missing", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Get(ctx, "blobs/no/such")
		require.ErrorIs(t, err, ErrNotFound)
		_, err = s.Stat(ctx, "blobs/no/such")
		require.ErrorIs(t, err, ErrNotFound)
		put(t, s, "blobs/aa/1", "x")
		_, err = s.Get(ctx, "blobs/aa") // a prefix of a key is no key
		require.ErrorIs(t, err, ErrNotFound)
		_, err = s.Stat(ctx, "blobs/aa")
		require.ErrorIs(t, err, ErrNotFound)
	})
	t.Run("invalid keys", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"", "/abs", "a/../b", "..", "a//b", "a/./b", "trail/", "sp ace", "tmp~1", strings.Repeat("a", MaxKeyBytes+1)} {
			require.Error(t, s.Put(ctx, k, strings.NewReader("x"), 1), "put %q", k)
			_, err := s.Get(ctx, k)
			require.Error(t, err, "get %q", k)
			require.NotErrorIs(t, err, ErrNotFound, "get %q", k)
			_, err = s.Stat(ctx, k)
			require.Error(t, err, "stat %q", k)
			require.Error(t, s.Delete(ctx, k), "delete %q", k)
		}
		require.Empty(t, list(t, s, ""))
	})
	t.Run("size mismatch", func(t *testing.T) {
		s := newStore(t)
		require.Error(t, s.Put(ctx, "short", strings.NewReader("abc"), 4))
		require.Error(t, s.Put(ctx, "long", strings.NewReader("abcde"), 4))
		require.Empty(t, list(t, s, ""), "a failed put leaves nothing")
		put(t, s, "kept", "old")
		require.Error(t, s.Put(ctx, "kept", strings.NewReader("new"), 30))
		require.Equal(t, "old", get(t, s, "kept"), "a failed overwrite keeps the old blob")
	})
	t.Run("concurrent puts of one key", func(t *testing.T) {
		s := newStore(t)
		const n, size = 6, 256 << 10
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				errs[i] = s.Put(ctx, "blobs/cc/same", bytes.NewReader(bytes.Repeat([]byte{byte('a' + i)}, size)), size)
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		got := get(t, s, "blobs/cc/same")
		require.Len(t, got, size)
		require.Equal(t, strings.Repeat(got[:1], size), got, "one writer's blob, whole")
	})
	t.Run("20 MiB streamed", func(t *testing.T) {
		s := newStore(t)
		src := newCountingReader(20<<20, nil)
		require.NoError(t, s.Put(ctx, "blobs/big/one", src, src.size))
		require.Equal(t, src.size, src.n, "put read exactly the size")
		info, err := s.Stat(ctx, "blobs/big/one")
		require.NoError(t, err)
		require.Equal(t, src.size, info.Size)
		rc, err := s.Get(ctx, "blobs/big/one")
		require.NoError(t, err)
		defer rc.Close()
		h := sha256.New()
		_, err = io.Copy(h, rc)
		require.NoError(t, err)
		require.Equal(t, src.sum(), h.Sum(nil))
	})
}

func put(t *testing.T, s Store, key, data string) {
	t.Helper()
	require.NoError(t, s.Put(context.Background(), key, strings.NewReader(data), int64(len(data))))
}

func get(t *testing.T, s Store, key string) string {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b)
}

func list(t *testing.T, s Store, prefix string) []string {
	t.Helper()
	var keys []string
	require.NoError(t, s.List(context.Background(), prefix, func(i Info) error {
		keys = append(keys, i.Key)
		return nil
	}))
	slices.Sort(keys)
	return keys
}

// countingReader yields size bytes of a fixed pattern without holding
// them (no ReaderAt, no Seeker: a store sees a plain stream) and counts
// what it handed out. atLast, when set, runs just before the last chunk
// goes out: a test there looks at how much already reached the store.
type countingReader struct {
	size, n int64
	atLast  func()
}

func newCountingReader(size int64, atLast func()) *countingReader {
	return &countingReader{size: size, atLast: atLast}
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n == c.size {
		return 0, io.EOF
	}
	if int64(len(p)) > c.size-c.n {
		p = p[:c.size-c.n]
	}
	if c.n+int64(len(p)) == c.size && c.atLast != nil {
		c.atLast()
	}
	for i := range p {
		p[i] = pattern(c.n + int64(i))
	}
	c.n += int64(len(p))
	return len(p), nil
}

func pattern(off int64) byte { return byte(off*7 + off>>12) }

// sum is the sha256 of everything the reader yields.
func (c *countingReader) sum() []byte {
	h := sha256.New()
	buf := make([]byte, 64<<10)
	for off := int64(0); off < c.size; off += int64(len(buf)) {
		n := min(int64(len(buf)), c.size-off)
		for i := range n {
			buf[i] = pattern(off + i)
		}
		h.Write(buf[:n])
	}
	return h.Sum(nil)
}

func TestMemoryContract(t *testing.T) {
	storeContract(t, func(*testing.T) Store { return NewMemory() })
}
