package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// local is one entry of a local folder as a scan found it: what a
// manifest would say of it (Hash empty while unknown), and its lstat.
type local struct {
	ManifestEntry
	info fs.FileInfo
}

// scan lists a local folder through the safe walk: every entry a record
// keeps, with the hashes the stat cache knows, and what it skips.
type scan struct {
	root     *os.Root
	cache    *statCache
	beat     func(...any)
	maxFiles int   // 0: no limit
	maxBytes int64 // 0: no limit

	entries []local // sorted by path once run returns
	skipped []Skip
	bytes   int64
	n       int
}

// errTooMany and errTooLarge stop a scan at a limit.
var (
	errTooMany  = errors.New("too many entries")
	errTooLarge = errors.New("too many bytes")
)

// run walks the folder. It stops at the first limit crossed, before any
// file is read.
func (s *scan) run(ctx context.Context) error {
	if err := walk(ctx, s.root, "", s.visit); err != nil {
		return err
	}
	slices.SortFunc(s.entries, func(a, b local) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

// visit classifies one entry; see Files.Record for what is skipped.
func (s *scan) visit(e *entry) error {
	if s.n++; s.n%beatEvery == 0 && s.beat != nil {
		s.beat("scan", s.n)
	}
	l := local{ManifestEntry: ManifestEntry{Path: e.rel}, info: e.info}
	switch e.kind() {
	case kindDir:
		if e.err != nil {
			return s.skipOr(e, e.err)
		}
		l.Kind, l.Mode = EntryDir, uint32(e.info.Mode().Perm())
	case kindLink:
		target, err := e.dir.Readlink(e.name)
		if err != nil {
			return s.skipOr(e, changedOr(e.dir, e.name, e.info, err))
		}
		if linkLeadsOut(e.rel, target) {
			s.skip(e.rel, skipLinkOut)
			return nil
		}
		l.Kind, l.Target = EntryLink, target
	case kindFile:
		if n := linkCount(e.info); n > 1 {
			s.skip(e.rel, fmt.Sprintf(skipLinks, n))
			return nil
		}
		l.Kind, l.Mode, l.Size = EntryFile, uint32(e.info.Mode().Perm()), e.info.Size()
		if hash, ok := s.cache.lookup(e.rel, e.info); ok {
			l.Hash = hash
		}
		s.bytes += l.Size
	default:
		s.skip(e.rel, skipSpecial)
		return nil
	}
	s.entries = append(s.entries, l)
	if s.maxFiles > 0 && len(s.entries) > s.maxFiles {
		return errTooMany
	}
	if s.maxBytes > 0 && s.bytes > s.maxBytes {
		return errTooLarge
	}
	return nil
}

// skipOr records rel as skipped when err says it changed once listed,
// and returns err otherwise.
func (s *scan) skipOr(e *entry, err error) error {
	if !errors.Is(err, errChanged) {
		return err
	}
	s.skip(e.rel, skipChanged)
	return nil
}

// skip records rel as left out for reason.
func (s *scan) skip(rel, reason string) {
	s.skipped = append(s.skipped, Skip{Path: rel, Reason: reason})
}

// hashFile reads the file l through the folder's root, after checking it
// is still the file listed, and returns its SHA-256 and its fstat. A file
// swapped or written to while read is errChanged.
func hashFile(root *os.Root, l *local) (string, fs.FileInfo, error) {
	hook("snapshot", l.Path)
	in, fi, err := openFile(root, l.Path, l.info)
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	h := sha256.New()
	n, err := io.Copy(h, in)
	if err != nil {
		return "", nil, err
	}
	after, err := in.Stat()
	if err != nil {
		return "", nil, err
	}
	if n != fi.Size() || !sameStat(fi, after) {
		return "", nil, errChanged
	}
	return hex.EncodeToString(h.Sum(nil)), fi, nil
}

// sameStat reports whether two stats of a file have the same cache key:
// nothing wrote to it in between.
func sameStat(a, b fs.FileInfo) bool {
	ka, okA := statKey(a)
	kb, okB := statKey(b)
	if !okA || !okB {
		return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
	}
	return ka == kb
}

// verifyingReader yields a file's bytes for a Put, and fails at the end
// instead of returning io.EOF when they do not hash to want (the file
// changed since it was hashed), so the store keeps nothing under a key
// that does not name its content.
type verifyingReader struct {
	r        io.Reader
	want     string
	sum      hashWriter
	mismatch bool
}

// hashWriter is the running hash of a verifyingReader.
type hashWriter interface {
	io.Writer
	Sum([]byte) []byte
}

func newVerifyingReader(r io.Reader, size int64, want string) *verifyingReader {
	return &verifyingReader{r: io.LimitReader(r, size), want: want, sum: sha256.New()}
}

// Read implements io.Reader.
func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.sum.Write(p[:n])
	if err == io.EOF && hex.EncodeToString(v.sum.Sum(nil)) != v.want {
		v.mismatch = true
		return n, fmt.Errorf("content no longer hashes to %s: %w", v.want, errChanged)
	}
	return n, err
}

// sortSkips sorts skips by path.
func sortSkips(s []Skip) {
	slices.SortFunc(s, func(a, b Skip) int { return strings.Compare(a.Path, b.Path) })
}
