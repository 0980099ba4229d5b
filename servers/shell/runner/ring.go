package runner

import "sync"

// Ring keeps the last bytes of a stream, addressed by their offset in the whole stream.
// It is safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	buf   []byte
	size  int
	pos   int // where the oldest byte is once the ring is full
	total int64
}

// NewRing returns a ring that keeps the last size bytes.
func NewRing(size int) *Ring { return &Ring{size: max(size, 1)} }

// Write appends p, dropping the oldest bytes beyond the ring's size.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	r.total += int64(n)
	if len(p) >= r.size {
		r.buf = append(r.buf[:0], p[len(p)-r.size:]...)
		r.pos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(r.buf) < r.size {
			k := min(r.size-len(r.buf), len(p))
			r.buf = append(r.buf, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(r.buf[r.pos:], p)
		r.pos = (r.pos + k) % r.size
		p = p[k:]
	}
	return n, nil
}

// Total is the stream's length so far: the offset the next byte will have.
func (r *Ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Read returns up to limit bytes from offset, or from the oldest byte kept when offset is
// older than that, and the offset the returned bytes start at.
func (r *Ring) Read(offset int64, limit int) ([]byte, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read(offset, limit)
}

func (r *Ring) read(offset int64, limit int) ([]byte, int64) {
	first := r.total - int64(len(r.buf))
	offset = min(max(offset, first), r.total)
	n := int(min(int64(limit), r.total-offset))
	out := make([]byte, 0, max(n, 0))
	if n <= 0 {
		return out, offset
	}
	// The bytes run from i to the end of buf, then on from its start when the ring wrapped.
	i := (r.pos + int(offset-first)) % len(r.buf)
	k := min(n, len(r.buf)-i)
	out = append(out, r.buf[i:i+k]...)
	return append(out, r.buf[:n-k]...), offset
}

// Tail returns the last n bytes kept and the offset they start at.
func (r *Ring) Tail(n int) ([]byte, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read(r.total-int64(n), n)
}
