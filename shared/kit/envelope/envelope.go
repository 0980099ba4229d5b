// Package envelope reads the JSON-RPC messages of one MCP request body once, on the kit's side
// of the go-sdk: the checks before the MCP layer (which tool a read-only token calls) and the
// tool's argument decoding read them instead of parsing the body again.
package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	segjson "github.com/segmentio/encoding/json"
)

// Message is what the kit reads of one JSON-RPC message.
type Message struct {
	Method string // "" for a response or a message without one
	Tool   string // the tool a tools/call names
	// Arguments are a tools/call's arguments as encoding/json decodes them into an any (nil
	// when absent or null); HasArguments says whether the key was there. They are the tool
	// call's: its argument decoding takes them over and may change them.
	Arguments    any
	HasArguments bool
	// ID is the message's JSON-RPC id as encoding/json decodes it (nil for a notification);
	// Cancels is the requestId of a notifications/cancelled.
	ID      any
	Cancels any
}

// Envelope is one request body's messages: one, or several in a JSON-RPC batch (which the
// 2025-03-26 protocol still allows).
type Envelope struct {
	Messages []Message
	Batch    bool
	one      [1]Message // Messages of a body of one message, without another allocation
}

// ErrRepeatedKey refuses a message whose object or params repeat a key, even in another letter
// case: decoders disagree on which one wins, and the kit and the MCP layer must read one message.
var ErrRepeatedKey = errors.New("the JSON-RPC message repeats a key")

// Read reads a POST request's body (the body limit already on it bounds it), puts it back for
// the MCP layer and parses it. A body that is not JSON gives an empty Envelope and no error: the
// MCP layer answers it with a parse error. A body that cannot be read is an error (an
// *http.MaxBytesError past the limit), and so is a message ParseBody refuses.
func Read(r *http.Request) (*Envelope, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return &Envelope{}, nil
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = newBody(body)
	if err != nil {
		return nil, fmt.Errorf("the request body cannot be read: %w", err)
	}
	return ParseBody(body)
}

// body is a request body read already, put back for the MCP layer.
type body struct{ bytes.Reader }

func newBody(b []byte) *body {
	r := &body{}
	r.Reset(b)
	return r
}

// Close does nothing: the body is in memory.
func (*body) Close() error { return nil }

// ParseBody parses a request body in one pass of a tokenizer (the go-sdk's own JSON library's),
// decoding only what the kit reads: each message's method and id, for a tools/call the tool's
// name and its arguments (with encoding/json, as the kit validates them), for a
// notifications/cancelled the requestId. Keys are read exactly as the MCP layer reads them, by
// their exact spelling ("method", "id", "params", "name", "arguments", "requestId"); a
// message whose object or params repeat a key in any letter case is ErrRepeatedKey. A body that
// is not one JSON value gives an empty Envelope: the MCP layer answers it with its parse error.
func ParseBody(body []byte) (*Envelope, error) {
	env, err := parse(body)
	switch {
	case errors.Is(err, ErrRepeatedKey):
		return nil, err
	case err != nil:
		return &Envelope{}, nil //nolint:nilerr // not JSON: left to the MCP layer, which refuses it
	}
	return env, nil
}

// errSyntax is a body the kit cannot read as JSON-RPC; the MCP layer says what is wrong with it.
var errSyntax = errors.New("not a JSON-RPC body")

// reader walks one body's tokens.
type reader struct {
	body []byte
	t    segjson.Tokenizer
}

// next moves to the next token; false at the end or on a syntax error.
func (r *reader) next() bool { return r.t.Next() }

// offset is where the current token ends in the body.
func (r *reader) offset() int { return len(r.body) - r.t.Remaining() }

// parse reads one JSON-RPC message or batch, and nothing after it.
func parse(body []byte) (*Envelope, error) {
	r := reader{body: body}
	r.t.Reset(body)
	if !r.next() {
		return nil, errSyntax
	}
	env := &Envelope{}
	switch r.t.Delim {
	case '[':
		env.Batch = true
		for r.next() && r.t.Delim != ']' {
			if r.t.Delim == ',' {
				continue
			}
			m, err := r.message()
			if err != nil {
				return nil, err
			}
			env.Messages = append(env.Messages, m)
		}
		if r.t.Delim != ']' {
			return nil, errSyntax
		}
	case '{':
		m, err := r.message()
		if err != nil {
			return nil, err
		}
		env.one[0] = m
		env.Messages = env.one[:]
	default:
		if r.t.Delim != 0 {
			return nil, errSyntax
		}
		// A lone scalar: no message to read.
	}
	if r.next() || r.t.Err != nil {
		return nil, errSyntax // more than one value, or a broken one
	}
	return env, nil
}

// message reads the value at the current token as one message. Its params are read in the same
// pass, whatever the order of its keys, and kept only for a tools/call.
func (r *reader) message() (Message, error) {
	var m, call Message
	if r.t.Delim != '{' {
		return m, r.skip()
	}
	var keys keySet
	for {
		key, err := r.member(&keys)
		if err != nil || key == nil {
			return m, err
		}
		switch string(key) {
		case "method":
			m.Method = r.method()
		case "id":
			m.ID, err = r.value()
		case "params":
			err = r.params(&call)
		default:
			err = r.skip()
		}
		if err != nil {
			return m, err
		}
		switch m.Method {
		case "tools/call":
			m.Tool, m.Arguments, m.HasArguments = call.Tool, call.Arguments, call.HasArguments
		case "notifications/cancelled":
			m.Cancels = call.Cancels
		}
	}
}

// params reads the current value as a tools/call's params (its name and arguments) or a
// notifications/cancelled's (its requestId). A value that is not an object is skipped.
func (r *reader) params(m *Message) error {
	if r.t.Delim != '{' {
		return r.skip()
	}
	var keys keySet
	for {
		key, err := r.member(&keys)
		if err != nil || key == nil {
			return err
		}
		switch string(key) {
		case "name":
			m.Tool = r.text()
		case "arguments":
			start := r.offset() - len(r.t.Value)
			if err := r.skip(); err != nil {
				return err
			}
			m.HasArguments = true
			if err := json.Unmarshal(r.body[start:r.offset()], &m.Arguments); err != nil {
				return errSyntax
			}
		case "requestId":
			v, err := r.value()
			if err != nil {
				return err
			}
			m.Cancels = v
		default:
			if err := r.skip(); err != nil {
				return err
			}
		}
	}
}

// keySet holds the keys of one object read so far.
type keySet struct {
	first [8][]byte // a message has a handful of keys
	n     int
	more  [][]byte
}

// add records key, or refuses it when the object has it already in any letter case.
func (k *keySet) add(key []byte) error {
	for i := range k.n {
		if bytes.EqualFold(k.first[i], key) {
			return fmt.Errorf("%w: %q; send each key once", ErrRepeatedKey, key)
		}
	}
	for _, seen := range k.more {
		if bytes.EqualFold(seen, key) {
			return fmt.Errorf("%w: %q; send each key once", ErrRepeatedKey, key)
		}
	}
	if k.n < len(k.first) {
		k.first[k.n] = key
		k.n++
	} else {
		k.more = append(k.more, key)
	}
	return nil
}

// member moves to the next member of the object being read and returns its key, with the
// current token at its value; nil at the object's end.
func (r *reader) member(keys *keySet) ([]byte, error) {
	for r.next() {
		switch {
		case r.t.Delim == '}':
			return nil, nil
		case r.t.Delim == ',':
			continue
		case !r.t.IsKey:
			return nil, errSyntax
		}
		key := r.t.String()
		if err := keys.add(key); err != nil {
			return nil, err
		}
		if !r.next() || r.t.Delim != ':' || !r.next() {
			return nil, errSyntax
		}
		return key, nil
	}
	return nil, errSyntax
}

// method is the current value as a method name, without a copy for the common ones.
func (r *reader) method() string {
	if r.t.Kind() == segjson.Unescaped {
		switch v := r.t.String(); string(v) { // compared without a copy
		case "tools/call":
			return "tools/call"
		case "tools/list":
			return "tools/list"
		}
	}
	return r.text()
}

// text is the current value as a string, "" when it is not one.
func (r *reader) text() string {
	if r.t.Kind().Class() != segjson.String {
		if r.t.Delim != 0 {
			_ = r.skip()
		}
		return ""
	}
	return string(r.t.String())
}

// value decodes the value at the current token as encoding/json does into an any.
func (r *reader) value() (any, error) {
	start := r.offset() - len(r.t.Value)
	if err := r.skip(); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(r.body[start:r.offset()], &v); err != nil {
		return nil, errSyntax
	}
	return v, nil
}

// skip moves past the value at the current token.
func (r *reader) skip() error {
	if r.t.Delim != '{' && r.t.Delim != '[' {
		return nil
	}
	depth := r.t.Depth
	for r.next() {
		if (r.t.Delim == '}' || r.t.Delim == ']') && r.t.Depth == depth {
			return nil
		}
	}
	return errSyntax
}

// Calls lists the tools the envelope's tools/call messages name.
func (e *Envelope) Calls() []string {
	var names []string
	for _, m := range e.Messages {
		if m.Method == "tools/call" {
			names = append(names, m.Tool)
		}
	}
	return names
}

// Cancelled lists the request ids the envelope's notifications/cancelled messages name.
func (e *Envelope) Cancelled() []any {
	var ids []any
	for _, m := range e.Messages {
		if m.Method == "notifications/cancelled" && m.Cancels != nil {
			ids = append(ids, m.Cancels)
		}
	}
	return ids
}

// Call returns the arguments of the envelope's one tools/call of tool; ok is false when the
// envelope holds no such call or more than one tools/call (a batch), since the MCP layer's
// request then cannot be matched to one of them.
func (e *Envelope) Call(tool string) (m Message, ok bool) {
	var found []Message
	for _, m := range e.Messages {
		if m.Method == "tools/call" {
			found = append(found, m)
		}
	}
	if len(found) != 1 || found[0].Tool != tool {
		return Message{}, false
	}
	return found[0], true
}
