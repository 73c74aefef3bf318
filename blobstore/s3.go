package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/planmode/planmode/internal/secretfile"
)

// S3 is a Store in an S3-compatible bucket, keys below an optional
// prefix. A bucket that is down, unreachable or slow fails a call with
// an error wrapping ErrUnavailable within a bounded time instead of
// hanging it.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string // "" or ending in "/"
	where  string // endpoint and bucket, for messages
	// bucketSeen is set once the bucket answered as existing: a HEAD
	// request (Stat) cannot tell a missing bucket from a missing key.
	bucketSeen atomic.Bool
}

const (
	// s3DialTimeout bounds connecting: a store that is down fails fast.
	s3DialTimeout = 3 * time.Second
	// s3CallTimeout bounds a call that moves no blob, and the wait for
	// the first byte of an answer.
	s3CallTimeout = 30 * time.Second
	// s3MinRate is the slowest transfer a Put or Get waits for: its
	// bound is s3CallTimeout plus the blob's size at this rate.
	s3MinRate = 1 << 20 // bytes per second
	// s3PartSize is what a large Put holds in memory at a time.
	s3PartSize = 8 << 20
	// s3Retries is how often a failed request is tried in all.
	s3Retries = 3
)

// s3Form is what Open says an S3 store looks like.
const s3Form = "s3://bucket/optional/prefix?endpoint=host:port&region=us-east-1&insecure=true"

// NewS3 opens the bucket an s3:// URL names (see Open for its form). It
// reads the credentials opts names, and contacts nobody yet.
func NewS3(u *url.URL, opts Options) (*S3, error) {
	bucket := u.Host
	if err := s3utils.CheckValidBucketNameStrict(bucket); err != nil {
		return nil, fmt.Errorf("s3 bucket %q: %v; want %s", bucket, err, s3Form)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		if err := ValidKey(prefix); err != nil {
			return nil, fmt.Errorf("s3 prefix: %w", err)
		}
		prefix += "/"
	}
	if u.User != nil || u.Fragment != "" {
		return nil, fmt.Errorf("s3 store URL carries no user or fragment; want %s", s3Form)
	}
	endpoint, region, insecure := "s3.amazonaws.com", "us-east-1", false
	for name, vals := range u.Query() {
		if len(vals) != 1 || vals[0] == "" {
			return nil, fmt.Errorf("s3 store parameter %q wants one value; want %s", name, s3Form)
		}
		switch v := vals[0]; name {
		case "endpoint":
			if strings.ContainsAny(v, "/@?# ") {
				return nil, fmt.Errorf("s3 endpoint %q is no host[:port]; want %s", v, s3Form)
			}
			endpoint = v
		case "region":
			region = v
		case "insecure":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("s3 store parameter insecure=%q is no boolean; want %s", v, s3Form)
			}
			insecure = b
		default:
			return nil, fmt.Errorf("s3 store parameter %q is unknown; want %s", name, s3Form)
		}
	}
	creds, err := s3Credentials(opts)
	if err != nil {
		return nil, err
	}
	tr, err := minio.DefaultTransport(!insecure)
	if err != nil {
		return nil, err
	}
	tr.DialContext = (&net.Dialer{Timeout: s3DialTimeout, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = s3DialTimeout
	tr.ResponseHeaderTimeout = s3CallTimeout
	client, err := minio.New(endpoint, &minio.Options{
		Creds: creds, Secure: !insecure, Transport: tr, Region: region, MaxRetries: s3Retries,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 store at %s: %v; want %s", endpoint, err, s3Form)
	}
	return &S3{client: client, bucket: bucket, prefix: prefix, where: endpoint + "/" + bucket}, nil
}

// s3Credentials reads the access and secret key from the files opts
// names: both or neither (anonymous access).
func s3Credentials(opts Options) (*credentials.Credentials, error) {
	if opts.AccessKeyFile == "" && opts.SecretKeyFile == "" {
		return credentials.NewStatic("", "", "", credentials.SignatureAnonymous), nil
	}
	if opts.AccessKeyFile == "" || opts.SecretKeyFile == "" {
		return nil, errors.New("s3 credentials want both an access key file and a secret key file, or neither")
	}
	access, err := secretfile.Read(opts.AccessKeyFile)
	if err != nil {
		return nil, fmt.Errorf("s3 access key: %w", err)
	}
	secret, err := secretfile.Read(opts.SecretKeyFile)
	if err != nil {
		return nil, fmt.Errorf("s3 secret key: %w", err)
	}
	return credentials.NewStaticV4(access, secret, ""), nil
}

// Put implements Store. A large blob goes up in parts of s3PartSize, so
// no more than one part is held in memory.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, transferBound(size))
	defer cancel()
	src := &exactReader{ctx: callCtx, r: r, size: size, left: size}
	_, err := s.client.PutObject(callCtx, s.bucket, s.prefix+key, src, size, minio.PutObjectOptions{
		ContentType: "application/octet-stream", PartSize: s3PartSize,
		// An empty body signed as a stream goes out without a length,
		// which S3 refuses; an empty one has nothing to sign.
		DisableContentSha256: size == 0,
	})
	if src.failed != nil {
		return fmt.Errorf("put %s: %w", key, src.failed)
	}
	return s.fail(ctx, "put", key, err)
}

// Get implements Store. The blob streams until Close; the whole read is
// bounded by its size at s3MinRate.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	callCtx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(s3CallTimeout, cancel)
	// Core's GetObject sends the one GET at once, so a missing blob or
	// bucket shows here, with its code, not at the first Read.
	body, info, _, err := minio.Core{Client: s.client}.GetObject(callCtx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		timer.Stop()
		cancel()
		return nil, s.fail(ctx, "get", key, err)
	}
	timer.Reset(transferBound(info.Size))
	return &s3Reader{s: s, ctx: ctx, key: key, body: body, stop: func() { timer.Stop(); cancel() }}, nil
}

// s3Reader is a blob streaming from the bucket.
type s3Reader struct {
	s    *S3
	ctx  context.Context
	key  string
	body io.ReadCloser
	stop func()
}

func (r *s3Reader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if err != nil && err != io.EOF {
		err = r.s.fail(r.ctx, "get", r.key, err)
	}
	return n, err
}

func (r *s3Reader) Close() error {
	r.stop()
	return r.body.Close()
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := ValidKey(key); err != nil {
		return Info{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, s3CallTimeout)
	defer cancel()
	oi, err := s.client.StatObject(callCtx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s.missing(ctx, callCtx, "stat", key, s.fail(ctx, "stat", key, err))
	}
	return Info{Key: key, Size: oi.Size, ModTime: oi.LastModified}, nil
}

// List implements Store. Each page of the listing is bounded like a
// call; the listing as a whole takes as long as the bucket needs.
func (s *S3) List(ctx context.Context, prefix string, fn func(Info) error) error {
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing when fn does
	objects := s.client.ListObjectsIter(callCtx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true})
	for oi := range objects {
		if oi.Err != nil {
			return s.fail(ctx, "list", prefix, oi.Err)
		}
		key := strings.TrimPrefix(oi.Key, s.prefix)
		if ValidKey(key) != nil {
			continue // not one this store put
		}
		if err := fn(Info{Key: key, Size: oi.Size, ModTime: oi.LastModified}); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, s3CallTimeout)
	defer cancel()
	err := s.client.RemoveObject(callCtx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{})
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return nil
	}
	return s.fail(ctx, "delete", key, err)
}

// missing checks, the first time a blob is not found, that the bucket
// exists: a HEAD request (Stat) cannot tell a missing bucket from a
// missing key. A check that fails (an identity that may not ask, say)
// leaves the answer as it was.
func (s *S3) missing(ctx, callCtx context.Context, op, key string, err error) error {
	if !errors.Is(err, ErrNotFound) || s.bucketSeen.Load() {
		return err
	}
	ok, berr := s.client.BucketExists(callCtx, s.bucket)
	switch {
	case berr == nil && !ok:
		return s.fail(ctx, op, key, minio.ErrorResponse{Code: minio.NoSuchBucket})
	case berr == nil:
		s.bucketSeen.Store(true)
	}
	return err
}

// transferBound is how long moving size bytes may take.
func transferBound(size int64) time.Duration {
	return s3CallTimeout + time.Duration(max(size, 0)/s3MinRate)*time.Second
}

// fail says what went wrong with op on key: ErrNotFound for a missing
// blob, ErrUnavailable (with the cause) when the store is down, slow or
// failing, and the store's refusal otherwise. ctx is the caller's: when
// it ended, that is the reason, not the store.
func (s *S3) fail(ctx context.Context, op, key string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s: %w", op, key, ctx.Err())
	}
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == minio.NoSuchKey || resp.StatusCode == http.StatusNotFound && resp.Code != minio.NoSuchBucket:
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case resp.Code == minio.NoSuchBucket:
		return fmt.Errorf("%s %s: s3 bucket %s does not exist", op, key, s.where)
	case resp.StatusCode == 0 && resp.Code == "", resp.StatusCode >= 500,
		resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusRequestTimeout:
		return fmt.Errorf("%s %s: s3 bucket %s: %w: %w", op, key, s.where, ErrUnavailable, err)
	}
	return fmt.Errorf("%s %s: s3 bucket %s refused: %w", op, key, s.where, err)
}
