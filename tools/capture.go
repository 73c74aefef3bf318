package tools

import (
	"io"
	"sync"
)

// capture collects a command's output up to max bytes, keeping the head
// and the tail when there is more, so both the first error and the final
// summary of a long build survive.
type capture struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte
	total int
	// full, when set, gets every byte; its errors are ignored so that a
	// full disk never breaks the command's pipes.
	full io.Writer
}

// Write keeps the first half of the cap and a rolling last half, and
// passes everything on to full.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += n
	if c.full != nil {
		_, _ = c.full.Write(p)
	}
	headCap := c.max / 2
	if room := headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	tailCap := c.max - headCap
	c.tail = append(c.tail, p...)
	if len(c.tail) > tailCap {
		c.tail = c.tail[len(c.tail)-tailCap:]
	}
	return n, nil
}

// Output returns what was kept and whether anything was dropped.
func (c *capture) Output() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total <= c.max {
		return string(c.head) + string(c.tail), false
	}
	return elide(string(c.head), string(c.tail), c.total), true
}
