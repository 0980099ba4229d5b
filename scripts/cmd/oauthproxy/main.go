// Command oauthproxy lets the MCP conformance suite, which sends no credentials, test a server
// running as an OAuth 2.1 protected resource. It serves a stand-in authorization server (RFC 8414
// metadata and a JWK set with a fresh ES256 key) and, in front of the MCP server, a reverse proxy
// that adds an access token minted for that server alone (RFC 9068: typ at+jwt, aud
// PUBLIC-URL/mcp, scope "NAME:read NAME:write", ten minutes), as a signed-in client would. The
// server checks the token against the issuer's published key like any other; a request the proxy
// forwards without a token is refused. scripts/conformance.sh runs the suite through it.
//
// Usage: oauthproxy -server NAME -issuer 127.0.0.1:PORT -listen 127.0.0.1:PORT -target http://127.0.0.1:PORT
// It prints "ready" once both listen, and serves until killed.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func main() {
	server := flag.String("server", "", "the MCP server's name, which names its scopes")
	issuerAddr := flag.String("issuer", "127.0.0.1:0", "address of the stand-in authorization server")
	listen := flag.String("listen", "127.0.0.1:0", "address of the proxy the suite connects to")
	target := flag.String("target", "", "the MCP server's base URL, e.g. http://127.0.0.1:9003")
	flag.Parse()
	if err := run(*server, *issuerAddr, *listen, *target); err != nil {
		fmt.Fprintln(os.Stderr, "oauthproxy:", err)
		os.Exit(1)
	}
}

func run(server, issuerAddr, listen, target string) error {
	if server == "" || target == "" {
		return errors.New("give -server and -target")
	}
	to, err := url.Parse(target)
	if err != nil || to.Host == "" {
		return fmt.Errorf("-target %q: give the server's base URL", target)
	}
	il, err := net.Listen("tcp", issuerAddr)
	if err != nil {
		return err
	}
	pl, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	is, err := newIssuer("http://" + il.Addr().String())
	if err != nil {
		return err
	}
	// The resource is named as clients reach it: the proxy's own URL on "localhost".
	_, port, _ := net.SplitHostPort(pl.Addr().String())
	resource := "http://localhost:" + port + "/mcp"
	proxy := httputil.NewSingleHostReverseProxy(to)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := is.token(resource, server+":read "+server+":write")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		r.Header.Set("Authorization", "Bearer "+tok)
		proxy.ServeHTTP(w, r)
	})
	errc := make(chan error, 2)
	go func() { errc <- http.Serve(il, is.handler()) }()
	go func() { errc <- http.Serve(pl, handler) }()
	fmt.Printf("ready issuer=%s resource=%s\n", is.url, resource)
	return <-errc
}

// issuer is the stand-in authorization server: one signing key, metadata and keys over HTTP.
type issuer struct {
	url string
	key jose.JSONWebKey

	mu     sync.Mutex
	cached string    // the current token, reused until a minute before it expires
	until  time.Time // when to mint again
}

func newIssuer(u string) (*issuer, error) {
	pk, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &issuer{url: u, key: jose.JSONWebKey{Key: pk, KeyID: "conformance-1", Algorithm: string(jose.ES256), Use: "sig"}}, nil
}

func (is *issuer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                           is.url,
			"authorization_endpoint":           is.url + "/authorize",
			"token_endpoint":                   is.url + "/token",
			"jwks_uri":                         is.url + "/jwks",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{is.key.Public()}})
	})
	return mux
}

// token returns an access token for resource with scope, minting one when the last is near expiry.
func (is *issuer) token(resource, scope string) (string, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	now := time.Now()
	if is.cached != "" && now.Before(is.until) {
		return is.cached, nil
	}
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), is.key.KeyID)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key.Key}, opts)
	if err != nil {
		return "", err
	}
	claims := jwt.Claims{
		Issuer: is.url, Subject: "owner", Audience: jwt.Audience{resource},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(10 * time.Minute)),
		ID: fmt.Sprint(now.UnixNano()),
	}
	raw, err := jwt.Signed(signer).Claims(claims).Claims(map[string]any{"client_id": "conformance", "scope": scope}).Serialize()
	if err != nil {
		return "", err
	}
	is.cached, is.until = raw, now.Add(9*time.Minute)
	return raw, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
