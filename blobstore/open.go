package blobstore

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
)

// Options are what Open needs beside the URL. The zero Options opens a
// Dir, or an S3 bucket anonymously and without a local cache.
type Options struct {
	// AccessKeyFile and SecretKeyFile name the files holding an S3
	// store's credentials (surrounding white space is dropped). Both or
	// neither: with neither, the bucket is used anonymously.
	AccessKeyFile string
	SecretKeyFile string
	// CacheDir, when set, is an absolute folder where an S3 store's
	// immutable blobs are kept once read or written (see Cached).
	CacheDir string
}

// forms is what Open says a store looks like.
const forms = "want an absolute path, file:///absolute/path or " + s3Form

// Open opens the store rawURL names:
//
//   - an absolute path, or file:///absolute/path: a Dir there;
//   - s3://bucket/optional/prefix?endpoint=host:port&region=us-east-1&insecure=true:
//     an S3 bucket (endpoint defaults to AWS, region to us-east-1;
//     insecure=true speaks plain HTTP, for loopback and compose),
//     wrapped in Cached when opts.CacheDir is set.
//
// Anything else is an error that says which forms it takes; so is "":
// the caller passes its default.
func Open(rawURL string, opts Options) (Store, error) {
	if rawURL == "" {
		return nil, errors.New("no blob store given; " + forms)
	}
	if filepath.IsAbs(rawURL) {
		return NewDir(rawURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob store %q: %v; %s", rawURL, err, forms)
	}
	switch u.Scheme {
	case "file":
		if u.Opaque != "" || (u.Host != "" && u.Host != "localhost") || u.User != nil ||
			u.RawQuery != "" || u.Fragment != "" || !filepath.IsAbs(u.Path) {
			return nil, fmt.Errorf("blob store %q is no file:///absolute/path; %s", rawURL, forms)
		}
		return NewDir(u.Path)
	case "s3":
		s, err := NewS3(u, opts)
		if err != nil {
			return nil, err
		}
		if opts.CacheDir == "" {
			return s, nil
		}
		local, err := NewDir(opts.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("blob cache: %w", err)
		}
		return &Cached{Local: local, Remote: s}, nil
	}
	return nil, fmt.Errorf("blob store %q: %s", rawURL, forms)
}
