package resource

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Key set limits: how long keys are trusted without a refetch, how often an unknown kid may
// cause one (so a flood of made-up kids cannot hammer the issuer), and how large a key set may be.
const (
	keysTTL         = time.Hour
	keysMinInterval = 10 * time.Second
	maxKeySetBytes  = 256 << 10
)

// keySet holds the issuer's published signing keys, fetched on first use, refetched when they
// are older than keysTTL or a token names a kid they lack.
type keySet struct {
	issuer string
	base   string // where the metadata and keys are fetched: the issuer, or an internal URL for it
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	jwksURI string
	keys    map[string]jose.JSONWebKey // by kid: public signing keys only
	fetched time.Time                  // when keys were last fetched (successfully or not)
	err     error                      // the last fetch's error, answered until the next try
}

func newKeySet(issuer, base string, client *http.Client, now func() time.Time) *keySet {
	if base == "" {
		base = issuer
	}
	return &keySet{issuer: issuer, base: strings.TrimSuffix(base, "/"), client: client, now: now}
}

// key returns the public key with the given kid, fetching the key set when it is stale or
// lacks the kid (at most once per keysMinInterval).
func (k *keySet) key(ctx context.Context, kid string) (jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	key, ok := k.keys[kid]
	fresh := k.keys != nil && now.Sub(k.fetched) < keysTTL
	if ok && fresh {
		return key, nil
	}
	if now.Sub(k.fetched) >= keysMinInterval || k.fetched.IsZero() {
		k.fetched = now
		keys, err := k.fetch(ctx)
		k.err = err
		if err == nil {
			k.keys = keys
		}
	}
	if key, ok := k.keys[kid]; ok {
		return key, nil
	}
	if k.err != nil && k.keys == nil {
		return jose.JSONWebKey{}, fmt.Errorf("%w: %w", ErrIssuerUnavailable, k.err)
	}
	return jose.JSONWebKey{}, fmt.Errorf("%w: the issuer publishes no signing key with kid %q", ErrInvalidToken, kid)
}

// fetch discovers the issuer's jwks_uri (once) and reads its public signing keys.
func (k *keySet) fetch(ctx context.Context) (map[string]jose.JSONWebKey, error) {
	if k.jwksURI == "" && k.base != k.issuer {
		uri, err := k.internalJWKSURI(ctx)
		if err != nil {
			return nil, err
		}
		k.jwksURI = uri
	}
	if k.jwksURI == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, k.issuer, k.client)
		if err != nil {
			return nil, fmt.Errorf("reading the metadata of issuer %s: %w", k.issuer, err)
		}
		if meta == nil {
			return nil, fmt.Errorf("issuer %s publishes no authorization server metadata", k.issuer)
		}
		if meta.JWKSURI == "" {
			return nil, fmt.Errorf("issuer %s publishes no jwks_uri", k.issuer)
		}
		k.jwksURI = meta.JWKSURI
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.jwksURI, nil)
	if err != nil {
		return nil, fmt.Errorf("jwks_uri %s: %w", k.jwksURI, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching the issuer's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching the issuer's keys from %s: HTTP %d", k.jwksURI, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the issuer's keys: %w", err)
	}
	if len(body) > maxKeySetBytes {
		return nil, fmt.Errorf("the issuer's key set is larger than %d bytes", maxKeySetBytes)
	}
	return parseKeySet(body)
}

// internalJWKSURI reads the issuer's RFC 8414 metadata at the internal base URL, checks that
// it is the configured issuer's, and returns its jwks_uri moved onto the base URL.
func (k *keySet) internalJWKSURI(ctx context.Context) (string, error) {
	where := k.base + "/.well-known/oauth-authorization-server"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return "", fmt.Errorf("issuer metadata at %s: %w", where, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("reading the metadata of issuer %s at %s: %w", k.issuer, where, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("reading the metadata of issuer %s at %s: HTTP %d", k.issuer, where, resp.StatusCode)
	}
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxKeySetBytes)).Decode(&meta); err != nil {
		return "", fmt.Errorf("the metadata at %s is not JSON: %w", where, err)
	}
	if meta.Issuer != k.issuer {
		return "", fmt.Errorf("the metadata at %s is issuer %q's, not %q: check --oauth-issuer-internal-url", where, meta.Issuer, k.issuer)
	}
	rest, ok := strings.CutPrefix(meta.JWKSURI, k.issuer+"/")
	if !ok {
		return "", fmt.Errorf("issuer %s publishes its keys at %q, outside its own URL, so they cannot be fetched through %s", k.issuer, meta.JWKSURI, k.base)
	}
	return k.base + "/" + rest, nil
}

// parseKeySet keeps the public signing keys that have a kid and an algorithm this package
// accepts; private and symmetric keys are refused outright, since a published key set must
// never hold one.
func parseKeySet(body []byte) (map[string]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("the issuer's key set is not a JWK set: %w", err)
	}
	keys := map[string]jose.JSONWebKey{}
	for _, key := range set.Keys {
		if !key.IsPublic() {
			return nil, fmt.Errorf("the issuer's key set holds a private or symmetric key (kid %q); refusing it", key.KeyID)
		}
		if key.KeyID == "" || (key.Use != "" && key.Use != "sig") || (key.Algorithm != "" && !acceptedAlg(key.Algorithm)) {
			continue
		}
		keys[key.KeyID] = key
	}
	return keys, nil
}
