// Package confirm asks the person behind a client to confirm an action that cannot be undone
// (mail to a stranger, a permanent delete, a command the shell's blocklist refuses) before a
// tool does it. It uses the protocol's elicitation as a multi round-trip request: the first
// call of the tool is answered with an input request (an elicitation form showing exactly
// what will happen) and an opaque request state; the client asks its user and calls the tool
// again with the same arguments, the answer and the state. The state is signed with a key
// that lives only in this process and binds the answer to the caller, the tool, the exact
// arguments and the exact question, for one use within Expiry: a model cannot write an
// answer, and an answer cannot be replayed or moved to another action.
//
// Clients on the 2026-07-28 protocol that declare elicitation get the question in band. Over
// stdio the go-sdk turns the same input request into an elicitation/create request for a
// 2025-era client that declares elicitation. A client that cannot be asked (one that does not
// declare elicitation, or a 2025-11-25 client of a stateless HTTP server, which cannot be sent
// requests) gets Unavailable, and the tool keeps the rule it had before: it goes ahead, or it
// refuses.
package confirm

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Expiry is how long a question may wait for its answer.
const Expiry = 10 * time.Minute

// inputID names the question among the call's input requests.
const inputID = "confirm"

// multiRoundTrip is the first protocol version with multi round-trip requests.
const multiRoundTrip = "2026-07-28"

// Answer is what Ask found out.
type Answer int

const (
	// Unavailable: the client cannot ask its user; the tool applies the rule it has without
	// confirmation.
	Unavailable Answer = iota
	// Accepted: the person accepted exactly this action, on this call.
	Accepted
)

// ErrDeclined is the error (wrapped) of an action the person declined or dismissed.
var ErrDeclined = errors.New("the person using the client declined it, so it was not done; do not try again unless they ask")

// InputRequired is the error Ask returns when the person must be asked: the kit answers the
// call with Result, an input-required result, instead of an error. A tool passes it up as it
// would any error, having changed nothing yet.
type InputRequired struct {
	Result *mcp.CallToolResult
}

func (e *InputRequired) Error() string { return "the owner's confirmation is needed" }

// Asker signs the questions of one process and remembers which answers were used.
type Asker struct {
	key  []byte
	now  func() time.Time
	mu   sync.Mutex
	used map[[nonceSize]byte]time.Time // nonces answered, until they expire
}

// NewAsker returns an Asker with a fresh random key.
func NewAsker() *Asker {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("confirm: no randomness: " + err.Error()) // crypto/rand does not fail on Linux
	}
	return &Asker{key: key, now: time.Now, used: map[[nonceSize]byte]time.Time{}}
}

// binding is what the kit knows of a call that a question is bound to.
type binding struct {
	asker          *Asker
	caller         string
	serverRequests bool // the transport can carry requests to the client (stdio)
}

type key struct{}

// Bind returns ctx for one tool call of caller: Ask works in it. serverRequests says whether
// the transport can send the client requests of its own (stdio can; stateless HTTP cannot).
func (a *Asker) Bind(ctx context.Context, caller string, serverRequests bool) context.Context {
	return context.WithValue(ctx, key{}, binding{asker: a, caller: caller, serverRequests: serverRequests})
}

// Ask asks the person to confirm message, the exact description of what the call is about to
// do, unless the call already carries their signed answer to this very question. It returns
// Accepted when they accepted; Unavailable when the client cannot ask; an *InputRequired to be
// passed up when the question must go out; an error wrapping ErrDeclined when they declined.
// A tool calls it after checking everything else and before changing anything: the client
// calls the tool again from the start with the answer.
func Ask(ctx context.Context, req *mcp.CallToolRequest, message string) (Answer, error) {
	b, ok := ctx.Value(key{}).(binding)
	if !ok || req == nil || req.Params == nil {
		return Unavailable, nil
	}
	p := req.Params
	bind := digest(p.Name, b.caller, canonical(p.Arguments), message)
	if p.RequestState != "" {
		if nonce, ok := b.asker.verify(p.RequestState, bind); ok {
			if res, ok := p.InputResponses[inputID].(*mcp.ElicitResult); ok && b.asker.use(nonce) {
				if res.Action == "accept" {
					return Accepted, nil
				}
				return Unavailable, ErrDeclined
			}
		}
		// A state that is not ours, has expired, was used, or answers another question:
		// ask afresh rather than act on it.
	}
	if !canAsk(req, b.serverRequests) {
		return Unavailable, nil
	}
	return Unavailable, &InputRequired{Result: &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputID: &mcp.ElicitParams{
			Mode:            "form",
			Message:         message,
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		}},
		RequestState: b.asker.sign(bind),
	}}
}

// canAsk reports whether the client can put a question to its user in answer to this call.
func canAsk(req *mcp.CallToolRequest, serverRequests bool) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	if e := caps.Elicitation; e.Form == nil && e.URL != nil {
		return false // URL elicitation only: no form to show the action in
	}
	return req.ProtocolVersion() >= multiRoundTrip || serverRequests
}

// canonical is the arguments in one spelling, whatever the client's key order and spacing.
func canonical(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// digest hashes the fields a question is bound to, each prefixed with its length.
func digest(fields ...any) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte("mcp-servers confirm v1"))
	for _, f := range fields {
		var b []byte
		switch v := f.(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		}
		_ = binary.Write(h, binary.BigEndian, uint64(len(b)))
		h.Write(b)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

const (
	nonceSize = 16
	stateSize = nonceSize + 8 + sha256.Size // nonce, expiry (Unix seconds), binding
)

// sign returns the request state of a new question bound to bind.
func (a *Asker) sign(bind [sha256.Size]byte) string {
	msg := make([]byte, stateSize, stateSize+sha256.Size)
	_, _ = rand.Read(msg[:nonceSize])
	binary.BigEndian.PutUint64(msg[nonceSize:], uint64(a.now().Add(Expiry).Unix()))
	copy(msg[nonceSize+8:], bind[:])
	return base64.RawURLEncoding.EncodeToString(a.mac(msg))
}

// mac appends msg's HMAC to it.
func (a *Asker) mac(msg []byte) []byte {
	m := hmac.New(sha256.New, a.key)
	m.Write(msg)
	return m.Sum(msg)
}

// verify checks a request state: signed by this Asker, not expired, bound to bind. It returns
// the question's nonce.
func (a *Asker) verify(state string, bind [sha256.Size]byte) (nonce [nonceSize]byte, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil || len(raw) != stateSize+sha256.Size {
		return nonce, false
	}
	if !hmac.Equal(a.mac(raw[:stateSize:stateSize])[stateSize:], raw[stateSize:]) {
		return nonce, false
	}
	expiry := time.Unix(int64(binary.BigEndian.Uint64(raw[nonceSize:])), 0)
	if !a.now().Before(expiry) || !hmac.Equal(raw[nonceSize+8:stateSize], bind[:]) {
		return nonce, false
	}
	copy(nonce[:], raw[:nonceSize])
	return nonce, true
}

// use marks a question answered; false when it already was.
func (a *Asker) use(nonce [nonceSize]byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for n, until := range a.used {
		if now.After(until) {
			delete(a.used, n)
		}
	}
	if _, done := a.used[nonce]; done {
		return false
	}
	a.used[nonce] = now.Add(Expiry)
	return true
}

// Confirm is Ask for an action a tool did without asking before this package: it returns nil
// when the person accepted or the client cannot ask (the action goes ahead, as it always
// did), else the error the tool returns before changing anything: the question to send, or
// the person's refusal.
func Confirm(ctx context.Context, req *mcp.CallToolRequest, message string) error {
	_, err := Ask(ctx, req, message)
	return err
}

// Possible reports whether Ask can put a question to the person behind this call's client: a
// tool that must look something up to word its question looks it up only then.
func Possible(ctx context.Context, req *mcp.CallToolRequest) bool {
	b, ok := ctx.Value(key{}).(binding)
	return ok && req != nil && req.Params != nil && canAsk(req, b.serverRequests)
}
