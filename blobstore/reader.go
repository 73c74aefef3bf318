package blobstore

import (
	"context"
	"fmt"
	"io"
)

// exactReader yields the size bytes a Put promised, and fails the read
// that would show the source had fewer or more, or that the context
// ended: a store then discards what it got instead of keeping a blob of
// another size. failed keeps what went wrong with the source (not the
// context), so a store can tell it from a failure of its own.
type exactReader struct {
	ctx    context.Context
	r      io.Reader
	size   int64
	left   int64
	failed error
}

func exactly(ctx context.Context, r io.Reader, size int64) io.Reader {
	return &exactReader{ctx: ctx, r: r, size: size, left: size}
}

func (e *exactReader) Read(p []byte) (int, error) {
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := e.read(p)
	if err != nil && err != io.EOF {
		e.failed = err
	}
	return n, err
}

func (e *exactReader) read(p []byte) (int, error) {
	if e.size < 0 {
		return 0, fmt.Errorf("negative size %d", e.size)
	}
	if e.left == 0 {
		return 0, e.end()
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	switch {
	case err == io.EOF && e.left > 0:
		return 0, fmt.Errorf("got %d bytes, want %d: %w", e.size-e.left, e.size, io.ErrUnexpectedEOF)
	case err == io.EOF || (err == nil && e.left == 0):
		// Look for more before handing out the last bytes: when
		// there is more, they are held back, so a writer never gets
		// the whole promised size (and no server completes a
		// request) from a source that breaks its promise.
		if err := e.end(); err != io.EOF {
			return 0, err
		}
		return n, io.EOF
	}
	return n, err
}

// end checks that the source has nothing past size.
func (e *exactReader) end() error {
	var one [1]byte
	n, err := io.ReadFull(e.r, one[:])
	if n > 0 {
		return fmt.Errorf("got more than the %d bytes promised", e.size)
	}
	if err == io.EOF {
		return io.EOF
	}
	return err
}
