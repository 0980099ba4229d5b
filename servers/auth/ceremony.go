package main

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// ceremony is a WebAuthn exchange in progress, held in memory for ceremonyLifetime.
type ceremony struct {
	csrf    string
	code    string // enrolment: the code the begin step checked
	session *webauthn.SessionData
	expires time.Time
}

const ceremonyLifetime = 5 * time.Minute

// ceremonies maps a browser's cookie (hashed) to its enrolment ceremony.
type ceremonies struct {
	mu sync.Mutex
	m  map[string]*ceremony
}

func (c *ceremonies) put(key string, v *ceremony) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for k, e := range c.m {
		if now.After(e.expires) {
			delete(c.m, k)
		}
	}
	if len(c.m) > 1000 { // bounded: a flood of page loads cannot grow it without end
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[key] = v
}

func (c *ceremonies) get(key string) (*ceremony, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok || time.Now().After(v.expires) {
		return nil, false
	}
	return v, true
}

// checked returns the ceremony of a browser's cookie value (and its key) when the request carries
// that ceremony's CSRF token; page names what the browser should reload when it does not.
func (c *ceremonies) checked(r *http.Request, cookie, page string) (string, *ceremony, error) {
	key := hashToken(cookie)
	v, ok := c.get(key)
	if !ok {
		return "", nil, fmt.Errorf("the %s page expired: reload it", page)
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-CSRF-Token")), []byte(v.csrf)) != 1 {
		return "", nil, errors.New("the page is stale (CSRF token mismatch): reload it")
	}
	return key, v, nil
}

func (c *ceremonies) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// newWebAuthn configures the relying party for the issuer's origin.
func newWebAuthn(rpID, origin string) (*webauthn.WebAuthn, error) {
	w, err := webauthn.New(&webauthn.Config{
		RPID:          rpID,
		RPDisplayName: "mcp-servers",
		RPOrigins:     []string{origin},
		// Discoverable credentials only: the sign-in page asks the browser for any passkey of
		// this site (no allowCredentials), so it never shows anyone the owner's credential ids.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationRequired,
		},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyLifetime},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyLifetime},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("webauthn: %w", err)
	}
	return w, nil
}
