package blobstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Memory is a Store in memory, for tests and benchmarks. Now, when set
// before use, stamps what Put stores.
type Memory struct {
	mu    sync.Mutex
	blobs map[string]memBlob
	fail  error
	Now   func() time.Time
}

type memBlob struct {
	data []byte
	mod  time.Time
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{blobs: map[string]memBlob{}} }

// SetFail makes every later call return err (a store that is down), or
// none again when err is nil.
func (m *Memory) SetFail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = err
}

// failed is the error SetFail set, if any.
func (m *Memory) failed() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fail
}

func (m *Memory) check(key string) error {
	if err := m.failed(); err != nil {
		return err
	}
	return ValidKey(key)
}

// Put implements Store.
func (m *Memory) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := m.check(key); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	if int64(len(data)) != size {
		return fmt.Errorf("put %s: got %d bytes, want %d", key, len(data), size)
	}
	now := time.Now()
	if m.Now != nil {
		now = m.Now()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.blobs[key] = memBlob{data: data, mod: now}
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := m.check(key); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[key]
	if !ok {
		return nil, fmt.Errorf("get %s: %w", key, ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b.data)), nil
}

// Stat implements Store.
func (m *Memory) Stat(ctx context.Context, key string) (Info, error) {
	if err := m.check(key); err != nil {
		return Info{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[key]
	if !ok {
		return Info{}, fmt.Errorf("stat %s: %w", key, ErrNotFound)
	}
	return Info{Key: key, Size: int64(len(b.data)), ModTime: b.mod}, nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, prefix string, fn func(Info) error) error {
	if err := m.failed(); err != nil {
		return err
	}
	m.mu.Lock()
	var infos []Info
	for k, b := range m.blobs {
		if strings.HasPrefix(k, prefix) {
			infos = append(infos, Info{Key: k, Size: int64(len(b.data)), ModTime: b.mod})
		}
	}
	m.mu.Unlock()
	for _, i := range infos {
		if err := fn(i); err != nil {
			return err
		}
	}
	return nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, key string) error {
	if err := m.check(key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.blobs, key)
	return nil
}

// Corrupt replaces the content under key without changing its key, as a
// failing disk would: for tests of verification.
func (m *Memory) Corrupt(key string, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.blobs[key]
	b.data = data
	m.blobs[key] = b
}
