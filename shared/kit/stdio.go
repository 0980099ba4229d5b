package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eofGrace is how long past the longest tool timeout (and stopGrace) the end of stdin is held
// back, for the answer to reach stdout.
const eofGrace = 2 * time.Second

// ServeIO serves MCP over newline-delimited JSON on in and out until ctx is done or in ends.
// When in ends, every request read so far is answered before the server stops (bounded by
// the longest tool timeout): the go-sdk would otherwise cancel the calls still running and
// drop their answers (go-sdk#1061).
func (s *Server) ServeIO(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	wait := DefaultTimeout
	for _, t := range s.tools {
		wait = max(wait, t.Timeout)
	}
	p := newPending()
	hr := &holdReader{r: in, pending: p, wait: wait + stopGrace + eofGrace, ctx: ctx, done: make(chan struct{})}
	tw := &trackWriter{w: out, pending: p}
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: hr, Writer: tw})
	if held := p.abandoned(); held > 0 {
		s.log.Warn("stdin closed with requests unanswered", "requests", held, "waited", hr.wait.String())
	}
	return err
}

// pending is the set of JSON-RPC request ids read and not yet answered.
type pending struct {
	mu      sync.Mutex
	ids     map[string]bool
	changed chan struct{} // closed and replaced on every removal
	gaveUp  int
}

func newPending() *pending {
	return &pending{ids: map[string]bool{}, changed: make(chan struct{})}
}

func (p *pending) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[id] = true
}

func (p *pending) remove(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids[id] {
		delete(p.ids, id)
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

// waitEmpty returns once no request is pending, ctx is done or wait has passed.
func (p *pending) waitEmpty(ctx context.Context, wait time.Duration, stop <-chan struct{}) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		n, changed := len(p.ids), p.changed
		p.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.mu.Lock()
			p.gaveUp = len(p.ids)
			p.mu.Unlock()
			return
		case <-ctx.Done():
			return
		case <-stop:
			return
		}
	}
}

func (p *pending) abandoned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gaveUp
}

// message is the part of a JSON-RPC message that tells requests, notifications and responses apart.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// messages decodes one line: a message or a batch of them. Anything else yields none.
func messages(line []byte) []message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []message
		if json.Unmarshal(line, &batch) != nil {
			return nil
		}
		return batch
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []message{m}
}

// idKey is an id as a map key; a missing or null id is no id.
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	// 1 and 1.0 name the same request; "1" does not.
	b, _ := json.Marshal(v)
	return string(b), true
}

// lines splits a stream into newline-terminated lines, keeping an unfinished one for later.
type lines struct{ buf []byte }

func (l *lines) feed(p []byte, each func([]byte)) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return
		}
		each(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

func (l *lines) flush(each func([]byte)) {
	if len(l.buf) > 0 {
		each(l.buf)
		l.buf = nil
	}
}

// holdReader passes stdin through, noting each request, and holds back its end until every
// request noted has been answered, wait has passed or it is closed.
type holdReader struct {
	r       io.ReadCloser
	pending *pending
	wait    time.Duration
	lines   lines
	eof     error // the end of input, held until the next Read
	held    bool  // the hold is over: the end of input goes through
	ctx     context.Context
	done    chan struct{}
	once    sync.Once
}

func (h *holdReader) note(line []byte) {
	for _, m := range messages(line) {
		switch {
		case m.Method == "notifications/cancelled":
			// A cancelled request gets no answer.
			if id, ok := idKey(m.Params.RequestID); ok {
				h.pending.remove(id)
			}
		case m.Method != "":
			if id, ok := idKey(m.ID); ok {
				h.pending.add(id)
			}
		}
	}
}

func (h *holdReader) Read(p []byte) (int, error) {
	if h.eof != nil {
		return 0, h.hold()
	}
	n, err := h.r.Read(p)
	h.lines.feed(p[:n], h.note)
	if err != nil {
		h.lines.flush(h.note)
		if n > 0 {
			h.eof = err // deliver the last bytes first, so the server reads the last request
			return n, nil
		}
		h.eof = err
		return 0, h.hold()
	}
	return n, nil
}

// hold waits for the answers and then returns the end of input.
func (h *holdReader) hold() error {
	if !h.held && errors.Is(h.eof, io.EOF) {
		h.pending.waitEmpty(h.ctx, h.wait, h.done)
	}
	h.held = true
	return h.eof
}

func (h *holdReader) Close() error {
	h.once.Do(func() { close(h.done) })
	return h.r.Close()
}

// trackWriter passes answers through to stdout, crossing each off the pending set.
type trackWriter struct {
	w       io.Writer
	pending *pending
	mu      sync.Mutex
	lines   lines
}

func (t *trackWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines.feed(p[:n], func(line []byte) {
		for _, m := range messages(line) {
			if m.Method != "" {
				continue // a request or notification of the server's own
			}
			if id, ok := idKey(m.ID); ok {
				t.pending.remove(id)
			}
		}
	})
	return n, err
}

func (t *trackWriter) Close() error { return nil }
