package progress

import "io"

// countingReader reports the bytes read through it.
type countingReader struct {
	r     io.Reader
	rep   *Reporter
	done  int64
	total int64
}

// Reader returns r reporting through rep, as bytes of total (0 or less: unknown), what is read
// through it: the progress of an upload or a download. With a nil rep it returns r itself.
func Reader(r io.Reader, rep *Reporter, total int64) io.Reader {
	if rep == nil {
		return r
	}
	return &countingReader{r: r, rep: rep, total: total}
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.done += int64(n)
		c.rep.Bytes(c.done, c.total)
	}
	return n, err
}
