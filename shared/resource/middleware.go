package resource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Static is a set of long-lived bearer tokens accepted beside OAuth access tokens (the fleet's
// label:token file); a token it knows has every scope.
type Static interface {
	Label(token string) (string, bool)
}

// ToolInfo reports whether a tool exists and whether it changes nothing.
type ToolInfo func(name string) (known, readOnly bool)

// readOnlyKey marks, in auth.TokenInfo.Extra, a grant without the write scope.
const readOnlyKey = "mcp_read_only"

// ReadOnly reports whether the token a request came with allows only the read-only tools.
func ReadOnly(info *auth.TokenInfo) bool {
	if info == nil || info.Extra == nil {
		return false
	}
	ro, _ := info.Extra[readOnlyKey].(bool)
	return ro
}

// Info is the token info a grant gives the MCP layer: the caller's label "oauth:CLIENT", its
// scopes and expiry, and whether it may call only the read-only tools (see ReadOnly).
func (g *Grant) Info() *auth.TokenInfo {
	return &auth.TokenInfo{UserID: "oauth:" + g.Client, Scopes: g.Scopes, Expiration: g.Expiry, Extra: map[string]any{readOnlyKey: !g.Write, "sub": g.Subject}}
}

type infoKey struct{}

// Middleware admits a request to next when it carries a static token or a valid access token
// for this resource. Without one it answers 401 with a challenge naming the metadata and the
// scopes; with a read-only token it answers 403 insufficient_scope to a call of a tool that
// changes something. fail, when not nil, hears the reason of every refusal (for metrics).
func (r *Resource) Middleware(static Static, tools ToolInfo, fail func(reason string), next http.Handler) http.Handler {
	if fail == nil {
		fail = func(string) {}
	}
	// The go-sdk reads the caller's token info from a context key only its own middleware sets.
	attach := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		info, _ := ctx.Value(infoKey{}).(*auth.TokenInfo)
		if info == nil {
			return nil, fmt.Errorf("%w: no token info", auth.ErrInvalidToken)
		}
		return info, nil
	}, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		tok, ok := guard.BearerToken(req)
		if !ok {
			fail(guard.ReasonMissingToken)
			r.challenge(w, http.StatusUnauthorized, "", "missing bearer token: sign in through the authorization server named in the resource metadata, or send Authorization: Bearer <token>")
			return
		}
		if static != nil {
			if label, ok := static.Label(tok); ok {
				info := &auth.TokenInfo{UserID: label, Expiration: time.Now().Add(time.Hour)}
				attach.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), infoKey{}, info)))
				return
			}
		}
		g, err := r.Verify(req.Context(), tok)
		switch {
		case errors.Is(err, ErrIssuerUnavailable):
			fail(guard.ReasonIssuerUnavailable)
			w.Header().Set("Retry-After", "10")
			http.Error(w, "Service Unavailable: the authorization server's keys cannot be fetched, so the token cannot be checked; try again shortly", http.StatusServiceUnavailable)
			return
		case errors.Is(err, ErrInsufficientScope):
			fail(guard.ReasonInsufficientScope)
			r.challenge(w, http.StatusForbidden, "insufficient_scope", err.Error())
			return
		case err != nil:
			fail(guard.ReasonInvalidToken)
			r.challenge(w, http.StatusUnauthorized, "invalid_token", err.Error())
			return
		}
		if !g.Write {
			if name, refused := writeCall(req, tools); refused {
				fail(guard.ReasonInsufficientScope)
				r.challenge(w, http.StatusForbidden, "insufficient_scope", fmt.Sprintf("%s changes something and needs the %s scope; this token has only %s", name, r.scopes.Write, r.scopes.Read))
				return
			}
		}
		info := g.Info()
		attach.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), infoKey{}, info)))
	})
}

// challenge answers with a WWW-Authenticate: Bearer challenge (RFC 6750 §3, RFC 9728 §5.1).
func (r *Resource) challenge(w http.ResponseWriter, status int, code, msg string) {
	params := []string{fmt.Sprintf("resource_metadata=%q", r.MetadataURL()), fmt.Sprintf("scope=%q", r.scopes.Read+" "+r.scopes.Write)}
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

// writeCall reports whether req is a tools/call of a tool that changes something, naming it.
// The body is read (it is already bounded by the kit's body limit) and put back. A body that
// is not one JSON-RPC object is let through: the MCP layer refuses it, and the kit refuses a
// write tool to a read-only caller there too.
func writeCall(req *http.Request, tools ToolInfo) (string, bool) {
	if req.Method != http.MethodPost || req.Body == nil {
		return "", false
	}
	body, err := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return "", false
	}
	known, readOnly := tools(msg.Params.Name)
	return msg.Params.Name, known && !readOnly
}
