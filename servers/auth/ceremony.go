package main

import (
	"fmt"
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
