package blobstore

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
)

// fakeS3 is an S3 server in the test's process, on loopback, counting
// the request body bytes it received.
type fakeS3 struct {
	endpoint string
	backend  *s3mem.Backend
	received atomic.Int64
}

func newFakeS3(t *testing.T, buckets ...string) *fakeS3 {
	t.Helper()
	f := &fakeS3{backend: s3mem.New()}
	for _, b := range buckets {
		require.NoError(t, f.backend.CreateBucket(b))
	}
	h := gofakes3.New(f.backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &countingBody{ReadCloser: r.Body, n: &f.received}
		if r.URL.Query().Has("partNumber") && r.Header.Get("X-Amz-Content-Sha256") == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" {
			// gofakes3 decodes a stream-signed body for a whole
			// object, not for a part: do it here, as S3 does.
			n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
			if err != nil {
				http.Error(w, "bad decoded length", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(&awsChunked{r: bufio.NewReader(r.Body)})
			r.ContentLength = n
			r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.endpoint = strings.TrimPrefix(srv.URL, "http://")
	return f
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// awsChunked reads the payload of an aws-chunked body: chunks of
// "<hex size>;chunk-signature=<sig>\r\n<data>\r\n", the last one empty.
// Signatures go unchecked: the fake checks none.
type awsChunked struct {
	r    *bufio.Reader
	left int64
	done bool
}

func (c *awsChunked) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		line, err := c.r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		if c.left, err = strconv.ParseInt(size, 16, 64); err != nil {
			return 0, err
		}
		if c.left == 0 {
			c.done = true
		}
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		_, err = c.r.Discard(2) // the chunk's closing CRLF
	}
	return n, err
}

// keyFiles writes credential files and returns Options naming them.
func keyFiles(t *testing.T) Options {
	dir := t.TempDir()
	opts := Options{AccessKeyFile: filepath.Join(dir, "access"), SecretKeyFile: filepath.Join(dir, "secret")}
	require.NoError(t, os.WriteFile(opts.AccessKeyFile, []byte("AKIATEST\n"), 0o600))
	require.NoError(t, os.WriteFile(opts.SecretKeyFile, []byte("  s3cr3t-value \n"), 0o600))
	return opts
}

func (f *fakeS3) open(t *testing.T, bucketPath string, opts Options) Store {
	t.Helper()
	s, err := Open("s3://"+bucketPath+"?endpoint="+f.endpoint+"&insecure=true&region=us-east-1", opts)
	require.NoError(t, err)
	return s
}

func TestS3Contract(t *testing.T) {
	storeContract(t, func(t *testing.T) Store {
		return newFakeS3(t, "plans").open(t, "plans/team/a", keyFiles(t))
	})
}

func TestS3KeysLiveUnderThePrefix(t *testing.T) {
	ctx := context.Background()
	f := newFakeS3(t, "plans")
	s := f.open(t, "plans/team/a", Options{})
	put(t, s, "blobs/aa/1", "x")
	_, err := f.backend.HeadObject("plans", "team/a/blobs/aa/1")
	require.NoError(t, err)

	_, err = f.backend.PutObject("plans", "elsewhere/k", nil, strings.NewReader("y"), 1, nil)
	require.NoError(t, err)
	_, err = f.backend.PutObject("plans", "team/a/odd key", nil, strings.NewReader("y"), 1, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"blobs/aa/1"}, list(t, s, ""), "objects outside the prefix, or no keys, are not listed")
	_, err = s.Get(ctx, "elsewhere/k")
	require.ErrorIs(t, err, ErrNotFound)
}

// Put streams: when the source hands out its last chunk, all but the
// part in hand has already reached the server.
func TestS3PutStreams(t *testing.T) {
	f := newFakeS3(t, "plans")
	s := f.open(t, "plans", Options{})
	var arrived int64
	src := newCountingReader(20<<20, func() { arrived = f.received.Load() })
	require.NoError(t, s.Put(context.Background(), "blobs/big/one", src, src.size))
	require.GreaterOrEqual(t, arrived, src.size-s3PartSize)
}

// A store that is down fails every call fast, as unavailable, naming
// where it tried.
func TestS3DownIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	s, err := Open("s3://plans?insecure=true&endpoint="+addr, Options{})
	require.NoError(t, err)

	ctx := context.Background()
	start := time.Now()
	calls := map[string]func() error{
		"put":    func() error { return s.Put(ctx, "k", strings.NewReader("x"), 1) },
		"get":    func() error { _, err := s.Get(ctx, "k"); return err },
		"stat":   func() error { _, err := s.Stat(ctx, "k"); return err },
		"list":   func() error { return s.List(ctx, "", func(Info) error { return nil }) },
		"delete": func() error { return s.Delete(ctx, "k") },
	}
	for name, call := range calls {
		err := call()
		require.ErrorIs(t, err, ErrUnavailable, name)
		require.ErrorContains(t, err, addr, name)
	}
	require.Less(t, time.Since(start), 15*time.Second)
}

// A server that accepts but never answers is cut off by the caller's
// context, and the store hands back the caller's reason.
func TestS3CallerContextEndsACall(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	s, err := Open("s3://plans?insecure=true&endpoint="+ln.Addr().String(), Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = s.Stat(ctx, "k")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestS3WrongBucket(t *testing.T) {
	ctx := context.Background()
	f := newFakeS3(t, "plans")
	s := f.open(t, "nope", Options{})
	_, err := s.Stat(ctx, "blobs/aa/1")
	require.ErrorContains(t, err, "bucket "+f.endpoint+"/nope does not exist")
	require.NotErrorIs(t, err, ErrNotFound)
	require.NotErrorIs(t, err, ErrUnavailable)
	_, err = s.Get(ctx, "blobs/aa/1")
	require.ErrorContains(t, err, "does not exist")
	err = s.Put(ctx, "blobs/aa/1", strings.NewReader("x"), 1)
	require.ErrorContains(t, err, "does not exist")
}

func TestS3Credentials(t *testing.T) {
	u := "s3://plans?endpoint=127.0.0.1:9&insecure=true"
	good := keyFiles(t)
	missing := filepath.Join(t.TempDir(), "absent")
	empty := filepath.Join(t.TempDir(), "empty")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))

	_, err := Open(u, Options{AccessKeyFile: good.AccessKeyFile, SecretKeyFile: missing})
	require.ErrorContains(t, err, missing)
	_, err = Open(u, Options{AccessKeyFile: empty, SecretKeyFile: good.SecretKeyFile})
	require.ErrorContains(t, err, empty)
	require.ErrorContains(t, err, "empty")
	_, err = Open(u, Options{AccessKeyFile: good.AccessKeyFile})
	require.ErrorContains(t, err, "both")
	_, err = Open(u, good)
	require.NoError(t, err)

	// A file that is no key (say, the secret put where the access key
	// file should be) is named in errors, never quoted.
	_, err = Open(u, Options{AccessKeyFile: good.AccessKeyFile, SecretKeyFile: t.TempDir()})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "s3cr3t")
}
