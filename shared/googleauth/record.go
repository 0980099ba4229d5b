package googleauth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
	"golang.org/x/oauth2"
)

// Record is what the shared token file holds: the account, the scopes granted and the token.
type Record struct {
	Account       string    `json:"account,omitempty"`
	ClientID      string    `json:"client_id,omitempty"`
	Scopes        []string  `json:"scopes"`
	AccessToken   string    `json:"access_token,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	RefreshToken  string    `json:"refresh_token"`
	Expiry        time.Time `json:"expiry,omitzero"`
	RefreshExpiry time.Time `json:"refresh_token_expiry,omitzero"` // set by Google for apps in Testing (7 days)
	SignedIn      time.Time `json:"signed_in"`
	Refreshed     time.Time `json:"refreshed,omitzero"`
}

// Token is the record's token for the oauth2 package.
func (r *Record) Token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// accessValid reports whether the access token is usable for at least margin more.
func (r *Record) accessValid(now time.Time, margin time.Duration) bool {
	return oauthtoken.AccessValid(r.AccessToken, r.Expiry, now, margin)
}

// apply takes a token fresh from Google's token endpoint into the record.
func (r *Record) apply(tok *oauth2.Token, now time.Time) {
	oauthtoken.Fields{AccessToken: &r.AccessToken, TokenType: &r.TokenType, RefreshToken: &r.RefreshToken, Expiry: &r.Expiry, Scopes: &r.Scopes}.Apply(tok)
	if secs, ok := number(tok.Extra("refresh_token_expires_in")); ok && secs > 0 {
		r.RefreshExpiry = now.Add(time.Duration(secs) * time.Second)
	}
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		var f float64
		_, err := fmt.Sscan(n, &f)
		return f, err == nil
	}
	return 0, false
}

func parseRecord(data []byte) (*Record, error) {
	return oauthtoken.Parse(data, func(r *Record) bool { return r.RefreshToken != "" || r.AccessToken != "" })
}

func (r *Record) marshal() ([]byte, error) { return oauthtoken.Marshal(r) }

// emailFromIDToken reads the email claim of an ID token that came straight from Google's token
// endpoint over TLS (so its signature need not be checked here).
func emailFromIDToken(tok *oauth2.Token) string {
	raw, _ := tok.Extra("id_token").(string)
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Email
}

// SaveRecord writes a new sign-in to the token file, atomically and under its lock.
func SaveRecord(path string, rec *Record) error { return oauthtoken.Save(path, rec) }

// RemoveRecord deletes the token file.
func RemoveRecord(path string) error { return oauthtoken.Remove(path) }

func readRecord(path string) (*Record, error) { return oauthtoken.Read(path, parseRecord) }
