package resource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jck411/mcp-servers/shared/guard"
)

// Authenticate checks an access token for this resource (Verify) and returns its caller, the
// client it was issued to as "oauth:CLIENT"; a token without the write scope makes a read-only
// caller. Its errors wrap guard.ErrInvalidToken, guard.ErrInsufficientScope or
// guard.ErrUnavailable, as the gate answers them, and say what went wrong.
func (r *Resource) Authenticate(ctx context.Context, token string) (guard.Caller, error) {
	g, err := r.Verify(ctx, token)
	switch {
	case errors.Is(err, ErrIssuerUnavailable):
		return guard.Caller{}, refusal{guard.ErrUnavailable, fmt.Errorf("the authorization server's keys cannot be fetched, so the token cannot be checked: %w", err)}
	case errors.Is(err, ErrInsufficientScope):
		return guard.Caller{}, refusal{guard.ErrInsufficientScope, err}
	case err != nil:
		return guard.Caller{}, refusal{guard.ErrInvalidToken, err}
	}
	return guard.Caller{Label: "oauth:" + g.Client, ReadOnly: !g.Write, Scopes: g.Scopes, Subject: g.Subject}, nil
}

// refusal is a token check's error as the gate reads it: kind decides the answer, err says why.
type refusal struct{ kind, err error }

func (e refusal) Error() string   { return e.err.Error() }
func (e refusal) Unwrap() []error { return []error{e.kind, e.err} }

// Challenge answers with status and a WWW-Authenticate: Bearer challenge naming this resource's
// metadata and scopes (RFC 6750 §3, RFC 9728 §5.1), with the error code when there is one.
func (r *Resource) Challenge(w http.ResponseWriter, status int, code, msg string) {
	r.challenge(w, status, code, msg)
}

// challenge answers with a WWW-Authenticate: Bearer challenge (RFC 6750 §3, RFC 9728 §5.1).
func (r *Resource) challenge(w http.ResponseWriter, status int, code, msg string) {
	params := []string{fmt.Sprintf("resource_metadata=%q", r.MetadataURL()), fmt.Sprintf("scope=%q", strings.Join(r.asked(), " "))}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", headerSafe(msg)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	http.Error(w, http.StatusText(status)+": "+msg, status)
}

// headerSafe keeps a description within RFC 6750's error_description characters.
func headerSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = '\''
		}
	}
	return string(b)
}
