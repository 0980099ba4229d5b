// Package envelope reads the JSON-RPC messages of one MCP request body once, on the kit's side
// of the go-sdk, and carries them in the request's context: the checks before the MCP layer
// (which tool a read-only token calls) and the tool's argument decoding read them there instead
// of parsing the body again.
package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Message is what the kit reads of one JSON-RPC message.
type Message struct {
	Method string // "" for a response or a message without one
	Tool   string // the tool a tools/call names
	// Arguments are a tools/call's arguments as encoding/json decodes them into an any (nil
	// when absent or null); HasArguments says whether the key was there.
	Arguments    any
	HasArguments bool
}

// Envelope is one request body's messages: one, or several in a JSON-RPC batch (which the
// 2025-03-26 protocol still allows).
type Envelope struct {
	Messages []Message
	Batch    bool
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
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("the request body cannot be read: %w", err)
	}
	return ParseBody(body)
}

// ParseBody parses a request body. Keys are read exactly as the MCP layer reads them (by their
// exact spelling: "method", "params", "name", "arguments"); a repeated key is ErrRepeatedKey.
// A body that is not one JSON value gives an empty Envelope: the MCP layer answers it with its
// parse error.
func ParseBody(body []byte) (*Envelope, error) {
	env, err := parse(json.NewDecoder(bytes.NewReader(body)))
	switch {
	case errors.Is(err, ErrRepeatedKey):
		return nil, err
	case err != nil:
		return &Envelope{}, nil //nolint:nilerr // not JSON: left to the MCP layer, which refuses it
	}
	return env, nil
}

// errTrailing is a body with more after its JSON value.
var errTrailing = errors.New("more than one JSON value")

// parse reads one JSON-RPC message or batch, and nothing after it.
func parse(dec *json.Decoder) (*Envelope, error) {
	env := &Envelope{}
	first, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch first {
	case json.Delim('['):
		env.Batch = true
		for dec.More() {
			m, err := message(dec, nil)
			if err != nil {
				return nil, err
			}
			env.Messages = append(env.Messages, m)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	case json.Delim('{'):
		m, err := message(dec, first)
		if err != nil {
			return nil, err
		}
		env.Messages = []Message{m}
	default:
		return &Envelope{}, nil // a scalar: no message to read
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailing
	}
	return env, nil
}

// message reads one message; open is its '{' when already read. Its params are read in the
// same pass, whatever the order of its keys, and kept only for a tools/call.
func message(dec *json.Decoder, open json.Token) (Message, error) {
	var m, call Message
	err := object(dec, open, func(key string) error {
		switch key {
		case "method":
			var v any
			if err := dec.Decode(&v); err != nil {
				return err
			}
			m.Method, _ = v.(string)
			return nil
		case "params":
			return params(dec, &call)
		}
		return skip(dec)
	})
	if m.Method == "tools/call" {
		m.Tool, m.Arguments, m.HasArguments = call.Tool, call.Arguments, call.HasArguments
	}
	return m, err
}

// params reads a message's params as a tools/call's: its name and arguments.
func params(dec *json.Decoder, m *Message) error {
	return object(dec, nil, func(key string) error {
		switch key {
		case "name":
			var v any
			if err := dec.Decode(&v); err != nil {
				return err
			}
			m.Tool, _ = v.(string)
			return nil
		case "arguments":
			m.HasArguments = true
			return dec.Decode(&m.Arguments)
		}
		return skip(dec)
	})
}

// object reads the members of a JSON object, calling member with each key for it to decode the
// value; open is its '{' when already read. A key repeated in any letter case is ErrRepeatedKey.
func object(dec *json.Decoder, open json.Token, member func(key string) error) error {
	if open == nil {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != json.Delim('{') {
			return skipRest(dec, t)
		}
	}
	var seen []string // a message has a handful of keys
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		folded := strings.ToLower(strings.ToUpper(key)) // folds K (Kelvin) and ſ too
		for _, s := range seen {
			if s == folded {
				return fmt.Errorf("%w: %q; send each key once", ErrRepeatedKey, key)
			}
		}
		seen = append(seen, folded)
		if err := member(key); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// skip reads past one value.
func skip(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// skipRest reads past the rest of a value whose first token is t.
func skipRest(dec *json.Decoder, t json.Token) error {
	d, ok := t.(json.Delim)
	if !ok || (d != '[' && d != '{') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
	return nil
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

type key struct{}

// With returns ctx carrying env.
func With(ctx context.Context, env *Envelope) context.Context {
	return context.WithValue(ctx, key{}, env)
}

// From returns the envelope ctx carries; nil outside an HTTP request (stdio, in-process).
func From(ctx context.Context) *Envelope {
	env, _ := ctx.Value(key{}).(*Envelope)
	return env
}
