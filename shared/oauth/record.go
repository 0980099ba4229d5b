package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Record is what a token file holds. Google's and Spotify's files have had these fields from the
// start (only Google sets refresh_token_expiry), so files saved before this package read as they are.
type Record struct {
	Account       string    `json:"account,omitempty"`
	ClientID      string    `json:"client_id,omitempty"`
	Scopes        []string  `json:"scopes"`
	AccessToken   string    `json:"access_token,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	RefreshToken  string    `json:"refresh_token"`
	Expiry        time.Time `json:"expiry,omitzero"`
	RefreshExpiry time.Time `json:"refresh_token_expiry,omitzero"` // when the provider said the grant ends (Google, apps in Testing)
	SignedIn      time.Time `json:"signed_in"`                     // the consent; a provider Lifetime counts from it
	Refreshed     time.Time `json:"refreshed,omitzero"`
}

func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// accessValid reports whether the access token is usable for at least margin more (a zero
// expiry never expires).
func (r *Record) accessValid(now time.Time, margin time.Duration) bool {
	return r.AccessToken != "" && (r.Expiry.IsZero() || r.Expiry.Sub(now) > margin)
}

// apply takes a token fresh from the token endpoint: a new refresh token replaces the old (the
// provider rotated it), none keeps it; a "scope" answer replaces the scopes; a
// refresh_token_expires_in answer sets RefreshExpiry.
func (r *Record) apply(tok *oauth2.Token, now time.Time) {
	r.AccessToken, r.TokenType, r.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		r.RefreshToken = tok.RefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		r.Scopes = strings.Fields(s)
	}
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
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("token file is not valid JSON: %w", err)
	}
	if r.RefreshToken == "" && r.AccessToken == "" {
		return nil, errors.New("token file holds no token")
	}
	return &r, nil
}

func (r *Record) marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SaveRecord writes a sign-in to the token file at path, atomically and under its lock.
func SaveRecord(path string, rec *Record) error {
	data, err := rec.marshal()
	if err != nil {
		return err
	}
	_, err = secretFile{Path: path}.Update(func([]byte) ([]byte, error) { return data, nil })
	return err
}

// ReadRecord reads the token file at path.
func ReadRecord(path string) (*Record, error) {
	data, _, err := secretFile{Path: path}.Read()
	if err != nil {
		return nil, err
	}
	return parseRecord(data)
}
