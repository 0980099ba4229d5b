package guard

import (
	"context"
	"errors"
	"net/http"
)

// Caller is who a request comes from, as the Gate decided it. It travels in the request's
// context (CallerFrom), where everything after the gate reads it.
type Caller struct {
	Label    string   // the name logs give it: a token's label, "oauth:CLIENT", CallerLocal or CallerAnonymous
	ReadOnly bool     // its credential allows only what changes nothing (an OAuth token without the write scope)
	Scopes   []string // an OAuth token's scopes; none for a static token, a local or an anonymous caller
	Subject  string   // an OAuth token's subject, the person who signed in
}

// Labels of the callers who come without a credential.
const (
	CallerLocal     = "local"     // provably from this machine, on a server bound to loopback
	CallerAnonymous = "anonymous" // anyone, on a server started with --insecure-no-auth
)

// Errors an Authenticator wraps to say how a token failed; any other error counts as
// ErrInvalidToken.
var (
	ErrInvalidToken      = errors.New("invalid bearer token")            // 401, error="invalid_token"
	ErrInsufficientScope = errors.New("insufficient scope")              // 403, error="insufficient_scope"
	ErrUnavailable       = errors.New("the token cannot be checked now") // 503 with Retry-After
)

// An Authenticator is a credential scheme: it says whom a bearer token belongs to, and words
// the challenge of a refusal (RFC 6750 §3).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (Caller, error)
	// Challenge answers with status (401 or 403) and a WWW-Authenticate: Bearer header; code is
	// the RFC 6750 error code ("" for a request without a token).
	Challenge(w http.ResponseWriter, status int, code, msg string)
}

// Gate decides who every request to a protected route comes from, and refuses the ones it must.
// A request that is not provably from this machine (Local) needs a credential; one that is may
// come without, but only to a server that has no credentials configured.
type Gate struct {
	loopback bool // the server listens on a loopback address only
	open     bool // --insecure-no-auth: a request from anywhere may come without a credential
	refused  func(reason string)
}

// NewGate returns the gate of a server bound to a loopback address (loopback) or not, started
// with --insecure-no-auth (open) or not; refused, when not nil, hears the reason of every refusal.
func NewGate(loopback, open bool, refused func(reason string)) *Gate {
	if refused == nil {
		refused = func(string) {}
	}
	return &Gate{loopback: loopback, open: open, refused: refused}
}

// Local reports whether a request may be served without a credential because it provably
// comes from this machine: the server listens on loopback only and the request is IsLocal
// (both ends of its connection loopback, a loopback Host, no header a proxy or tunnel adds).
func (g *Gate) Local(r *http.Request) bool { return g.loopback && IsLocal(r) }

// Require admits a request to next with its Caller in the context, or refuses it. auth is the
// route's credential scheme, nil when the server has none. With a scheme, every request needs a
// bearer token it accepts, from this machine too. Without one, a Local request comes as
// CallerLocal, any other as CallerAnonymous when the gate is open, and is refused (401)
// otherwise.
func (g *Gate) Require(auth Authenticator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := g.admit(w, r, auth)
		if !ok {
			return
		}
		next.ServeHTTP(w, r.WithContext(WithCaller(r.Context(), c)))
	})
}

// admit decides r, writing the refusal when it refuses.
func (g *Gate) admit(w http.ResponseWriter, r *http.Request, auth Authenticator) (Caller, bool) {
	if auth == nil {
		switch {
		case g.Local(r):
			return Caller{Label: CallerLocal}, true
		case g.open:
			return Caller{Label: CallerAnonymous}, true
		}
		g.refused(ReasonNotLocal)
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		http.Error(w, "Unauthorized: without --auth-tokens-file or --oauth-issuer this server answers only requests from this machine, not through a proxy or tunnel", http.StatusUnauthorized)
		return Caller{}, false
	}
	tok, present := BearerToken(r)
	if !present {
		g.refused(ReasonMissingToken)
		auth.Challenge(w, http.StatusUnauthorized, "", "missing bearer token: send Authorization: Bearer <token>")
		return Caller{}, false
	}
	c, err := auth.Authenticate(r.Context(), tok)
	switch {
	case err == nil:
		return c, true
	case errors.Is(err, ErrUnavailable):
		g.refused(ReasonIssuerUnavailable)
		w.Header().Set("Retry-After", "10")
		http.Error(w, "Service Unavailable: "+err.Error()+"; try again shortly", http.StatusServiceUnavailable)
	case errors.Is(err, ErrInsufficientScope):
		g.refused(ReasonInsufficientScope)
		auth.Challenge(w, http.StatusForbidden, "insufficient_scope", err.Error())
	default:
		g.refused(ReasonInvalidToken)
		auth.Challenge(w, http.StatusUnauthorized, "invalid_token", err.Error())
	}
	return Caller{}, false
}

// Trusted reports whether a request may see what only known callers see (/healthz's details):
// it is Local, or it carries a token auth accepts. A missing or wrong token is no error here.
func (g *Gate) Trusted(r *http.Request, auth Authenticator) bool {
	if g.Local(r) {
		return true
	}
	if auth == nil {
		return false
	}
	tok, present := BearerToken(r)
	if !present {
		return false
	}
	_, err := auth.Authenticate(r.Context(), tok)
	return err == nil
}

type callerKey struct{}

// WithCaller returns ctx carrying the request's caller.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller the gate admitted; ok is false outside a gated request (stdio,
// in-process).
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// Either accepts a token first accepts, else one second accepts (static tokens, then OAuth);
// its challenges are second's, which knows where to sign in.
func Either(first, second Authenticator) Authenticator { return either{first, second} }

type either struct{ first, second Authenticator }

func (e either) Authenticate(ctx context.Context, token string) (Caller, error) {
	if c, err := e.first.Authenticate(ctx, token); err == nil {
		return c, nil
	}
	return e.second.Authenticate(ctx, token)
}

func (e either) Challenge(w http.ResponseWriter, status int, code, msg string) {
	e.second.Challenge(w, status, code, msg)
}
