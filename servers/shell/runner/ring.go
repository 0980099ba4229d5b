package runner

import "sync"

// Ring keeps the last bytes of a stream, addressed by their offset in the whole stream.
// It is safe for concurrent use.
type Ring struct {
	mu    sync.Mutex
	last  lastBytes
	total int64
}

// lastBytes keeps the last size bytes written to it; it is not safe for concurrent use.
type lastBytes struct {
	buf  []byte
	size int
	pos  int // where the oldest byte is once buf is full
}

// write appends p, dropping the oldest bytes beyond size.
func (l *lastBytes) write(p []byte) {
	if len(p) >= l.size {
		l.buf = append(l.buf[:0], p[len(p)-l.size:]...)
		l.pos = 0
		return
	}
	for len(p) > 0 {
		if len(l.buf) < l.size {
			k := min(l.size-len(l.buf), len(p))
			l.buf = append(l.buf, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(l.buf[l.pos:], p)
		l.pos = (l.pos + k) % l.size
		p = p[k:]
	}
}

// bytes returns a copy of the bytes kept, oldest first.
func (l *lastBytes) bytes() []byte {
	out := make([]byte, 0, len(l.buf))
	out = append(out, l.buf[l.pos:]...)
	return append(out, l.buf[:l.pos]...)
}

// NewRing returns a ring that keeps the last size bytes.
func NewRing(size int) *Ring { return &Ring{last: lastBytes{size: max(size, 1)}} }

// Write appends p, dropping the oldest bytes beyond the ring's size.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(len(p))
	r.last.write(p)
	return len(p), nil
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
	buf := r.last.buf
	first := r.total - int64(len(buf))
	offset = min(max(offset, first), r.total)
	n := int(min(int64(limit), r.total-offset))
	out := make([]byte, 0, max(n, 0))
	if n <= 0 {
		return out, offset
	}
	// The bytes run from i to the end of buf, then on from its start when the ring wrapped.
	i := (r.last.pos + int(offset-first)) % len(buf)
	k := min(n, len(buf)-i)
	out = append(out, buf[i:i+k]...)
	return append(out, buf[:n-k]...), offset
}

// Tail returns the last n bytes kept and the offset they start at.
func (r *Ring) Tail(n int) ([]byte, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read(r.total-int64(n), n)
}
