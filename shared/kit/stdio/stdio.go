// Package stdio serves an MCP server over newline-delimited JSON on stdin and stdout, and
// keeps answering the requests it has read after stdin closes: the go-sdk would otherwise
// cancel the calls still running and drop their answers (go-sdk#1061).
package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve serves srv on in and out until ctx is done or in ends. When in ends, every request
// read so far is answered before Serve returns, waiting at most wait for them. It returns the
// number of requests still unanswered when it gave up waiting.
func Serve(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.Writer, wait time.Duration) (unanswered int, err error) {
	p := newPending()
	tw := &trackWriter{w: out, pending: p}
	hr := &holdReader{r: in, pending: p, reply: tw, wait: wait, ctx: ctx, done: make(chan struct{})}
	err = srv.Run(ctx, &mcp.IOTransport{Reader: hr, Writer: tw})
	return p.abandoned(), err
}

// pending is the set of JSON-RPC request ids read and not yet answered.
type pending struct {
	mu      sync.Mutex
	ids     map[string]bool
	changed chan struct{} // closed and replaced on every removal
	gaveUp  int
	// Calls read before any initialize request: the SDK refuses them with a plain error, which
	// goes out with code 0; trackWriter gives them JSON-RPC's Invalid Request instead.
	initialize bool
	early      map[string]bool
}

func newPending() *pending {
	return &pending{ids: map[string]bool{}, changed: make(chan struct{}), early: map[string]bool{}}
}

// read notes a request read from the client.
func (p *pending) read(id, method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[id] = true
	if method == "initialize" {
		p.initialize = true
	} else if !p.initialize {
		p.early[id] = true
	}
}

// wasEarly reports whether request id was read before any initialize request, forgetting it.
func (p *pending) wasEarly(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	early := p.early[id]
	delete(p.early, id)
	return early
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

// holdReader passes stdin through line by line, noting each request, and holds back its end
// until every request noted has been answered, wait has passed or it is closed. A line that is
// not a JSON-RPC message never reaches the SDK, whose stdio transport would end the session on
// it: reply answers it with Parse error (not JSON) or Invalid Request (JSON, not a message).
type holdReader struct {
	r       io.ReadCloser
	pending *pending
	reply   *trackWriter
	wait    time.Duration
	lines   lines
	buf     []byte // read from r, not yet split into lines
	out     []byte // accepted lines not yet read by the SDK
	eof     error  // the end of input, held until the next Read
	held    bool   // the hold is over: the end of input goes through
	ctx     context.Context
	done    chan struct{}
	once    sync.Once
}

// accept checks one line: a JSON-RPC message or batch goes on to the SDK, anything else is
// answered here.
func (h *holdReader) accept(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if code, msg, id := invalid(line); code != 0 {
		h.reply.refuse(id, code, msg)
		return
	}
	h.note(line)
	h.out = append(append(h.out, line...), '\n')
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
				h.pending.read(id, m.Method)
			}
		}
	}
}

func (h *holdReader) Read(p []byte) (int, error) {
	for len(h.out) == 0 {
		if h.eof != nil {
			return 0, h.hold()
		}
		if h.buf == nil {
			h.buf = make([]byte, 32<<10)
		}
		n, err := h.r.Read(h.buf)
		h.lines.feed(h.buf[:n], h.accept)
		if err != nil {
			h.lines.flush(h.accept) // the last line, even without a newline
			h.eof = err             // delivered after the lines before it
		}
	}
	n := copy(p, h.out)
	h.out = h.out[n:]
	return n, nil
}

// JSON-RPC 2.0 error codes the kit answers with itself.
const (
	codeParseError     = -32700 // not JSON
	codeInvalidRequest = -32600 // JSON, but not a request, notification or response
)

// invalid returns the error code for a line that is not a JSON-RPC message or batch (0 when it
// is one), with the message and the id to answer with (null when the line names none).
func invalid(line []byte) (code int, msg string, id json.RawMessage) {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return codeParseError, "Parse error: the line is not JSON (" + err.Error() + "); send one JSON-RPC message a line", nil
	}
	var one struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &one) == nil && len(one.ID) > 0 && (one.ID[0] == '"' || one.ID[0] == '-' || one.ID[0] >= '0' && one.ID[0] <= '9') {
		id = one.ID // a string or number; any other id is answered with null
	}
	raws := []json.RawMessage{line}
	if line[0] == '[' {
		// A fresh slice: decoding into raws would write the first element over line's bytes.
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return codeInvalidRequest, "Invalid Request: an empty batch or one that is not an array of messages", nil
		}
		raws = batch
	}
	for _, raw := range raws {
		if _, err := jsonrpc.DecodeMessage(raw); err != nil {
			return codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (" + err.Error() + ")", id
		}
	}
	return 0, "", nil
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

// trackWriter passes answers through to stdout a line at a time, crossing each off the pending
// set, and gives an answer to a call made before initialize the code Invalid Request.
type trackWriter struct {
	w       io.Writer
	pending *pending
	mu      sync.Mutex
	lines   lines
	err     error // the first write error; later writes fail with it
}

func (t *trackWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines.feed(p, t.send)
	if t.err != nil {
		return 0, t.err
	}
	return len(p), nil
}

// send writes one line of the SDK's out, with t.mu held. The answers are crossed off only
// once written: crossing one off can release the end of input, and with it the process's exit.
func (t *trackWriter) send(line []byte) {
	var answered []string
	for _, m := range messages(line) {
		if m.Method != "" {
			continue // a request or notification of the server's own
		}
		if id, ok := idKey(m.ID); ok {
			if t.pending.wasEarly(id) {
				line = earlyCode(line)
			}
			answered = append(answered, id)
		}
	}
	t.write(line)
	for _, id := range answered {
		t.pending.remove(id)
	}
}

func (t *trackWriter) write(line []byte) {
	if t.err == nil {
		_, t.err = t.w.Write(append(bytes.Clone(line), '\n'))
	}
}

// refuse answers a line the SDK never saw.
func (t *trackWriter) refuse(id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	if err != nil {
		return // id came from a valid JSON document: it marshals
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(line)
}

// earlyCode gives an error answer without a code (the SDK's refusal of a call before
// initialize) the code Invalid Request; any other line is returned as it is.
func earlyCode(line []byte) []byte {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Error == nil || m.Error.Code != 0 {
		return line
	}
	m.Error.Code = codeInvalidRequest
	m.Error.Message += ": send initialize first"
	out, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return out
}

// Close leaves stdout open: the process owns it.
func (t *trackWriter) Close() error { return nil }
