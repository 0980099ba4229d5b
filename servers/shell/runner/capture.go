package runner

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// Capture keeps the head and the tail of a stream within a byte limit, however long the
// stream is, and counts what it drops. It is safe for concurrent use.
type Capture struct {
	mu       sync.Mutex
	headSize int
	head     []byte
	tail     lastBytes
	total    int64
}

// NewCapture returns a capture that keeps at most limit bytes: half from the start, half from the end.
func NewCapture(limit int) *Capture {
	limit = max(limit, 2)
	return &Capture{headSize: limit / 2, tail: lastBytes{size: limit - limit/2}}
}

// Write keeps what fits in the head and rolls the rest through the tail.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.headSize - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail.write(p)
	return n, nil
}

// Total is how many bytes were written.
func (c *Capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Cut is how many bytes were dropped from the middle.
func (c *Capture) Cut() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut()
}

func (c *Capture) cut() int64 { return c.total - int64(len(c.head)) - int64(len(c.tail.buf)) }

// String returns the stream, or its head and tail joined by a marker saying how many bytes were cut.
// Cuts fall on UTF-8 character boundaries.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail.bytes()
	cut := c.cut()
	if cut == 0 {
		return string(c.head) + string(tail)
	}
	head := c.head
	for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head[max(0, len(head)-utf8.UTFMax):]); i++ {
		head = head[:len(head)-1]
		cut++
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
		cut++
	}
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", head, cut, tail)
}
