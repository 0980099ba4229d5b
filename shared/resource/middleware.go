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
	// That middleware checks the expiry again, without skew unless told: given twice Verify's
	// leeway, it never refuses a token Verify has just accepted (which would answer 401 in the
	// minute after a token expires), and should it refuse anything, its 401 still names the
	// metadata.
	attach := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		info, _ := ctx.Value(infoKey{}).(*auth.TokenInfo)
		if info == nil {
			return nil, fmt.Errorf("%w: no token info", auth.ErrInvalidToken)
		}
		return info, nil
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: r.MetadataURL(), ClockSkew: 2 * leeway})(next)
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
			name, err := writeCall(req, tools)
			switch {
			case err != nil:
				fail(guard.ReasonInsufficientScope)
				http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
				return
			case name != "" && r.readOnly:
				fail(guard.ReasonInsufficientScope)
				r.challenge(w, http.StatusForbidden, "insufficient_scope", fmt.Sprintf("%s changes something, and %s offers only the read-only tools", name, r.resource))
				return
			case name != "":
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

// writeCall returns the name of a tool that changes something when req calls one (in a single
// message or anywhere in a JSON-RPC batch, which older protocol versions still accept). It
// reads keys exactly as the MCP layer does (case-sensitively, "method", "params", "name"), and
// refuses a message whose object or params repeat a key, even in another letter case, since
// decoders disagree on which one wins. The body is read (the kit's body limit bounds it) and
// put back. A body that is not JSON-RPC is let through: the MCP layer refuses it, and refuses a
// write tool to a read-only caller there too.
func writeCall(req *http.Request, tools ToolInfo) (string, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return "", nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("the request body cannot be read: %w", err)
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(trimmed) {
		return "", nil // the MCP layer answers it with a parse error
	}
	msgs := []json.RawMessage{trimmed}
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &msgs); err != nil {
			return "", fmt.Errorf("the JSON-RPC batch cannot be read: %w", err)
		}
	}
	for _, m := range msgs {
		name, err := calledTool(m)
		if err != nil {
			return "", err
		}
		if known, readOnly := tools(name); name != "" && known && !readOnly {
			return name, nil
		}
	}
	return "", nil
}

// calledTool returns the tool a tools/call message (valid JSON) names, "" for any other message.
func calledTool(msg json.RawMessage) (string, error) {
	top, err := strictObject(msg)
	if err != nil || top == nil {
		return "", err
	}
	var method string
	_ = json.Unmarshal(top["method"], &method) // absent or not a string: not a tools/call
	if method != "tools/call" {
		return "", nil
	}
	params, err := strictObject(top["params"])
	if err != nil || params == nil {
		return "", err
	}
	var name string
	_ = json.Unmarshal(params["name"], &name)
	return name, nil
}

// strictObject splits valid JSON that is an object into its members by exact key; nil when it
// is something else, an error when a key repeats (compared without letter case).
func strictObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("the JSON-RPC message cannot be read: %w", err)
	}
	out := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("the JSON-RPC message cannot be read: %w", err)
		}
		key, _ := t.(string)
		folded := strings.ToLower(strings.ToUpper(key)) // folds K (Kelvin) and ſ too
		if seen[folded] {
			return nil, fmt.Errorf("the JSON-RPC message repeats the key %q: send each key once", key)
		}
		seen[folded] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("the JSON-RPC message cannot be read: %w", err)
		}
		out[key] = v
	}
	return out, nil
}
