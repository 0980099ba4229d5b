package spotifyauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// RefreshLifetime is how long Spotify keeps a refresh token valid after the original
// authorization (from 2026-07-20); rotation does not extend it.
const RefreshLifetime = 183 * 24 * time.Hour

// Record is what the token file holds.
type Record struct {
	Account      string    `json:"account,omitempty"`
	ClientID     string    `json:"client_id,omitempty"`
	Scopes       []string  `json:"scopes"`
	AccessToken  string    `json:"access_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expiry,omitzero"`
	SignedIn     time.Time `json:"signed_in"` // the original authorization: the refresh token's lifetime counts from it
	Refreshed    time.Time `json:"refreshed,omitzero"`
}

// Token is the record's token for the oauth2 package.
func (r *Record) Token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// RefreshExpiry is when the sign-in stops working by Spotify's six-month rule.
func (r *Record) RefreshExpiry() time.Time {
	if r.SignedIn.IsZero() {
		return time.Time{}
	}
	return r.SignedIn.Add(RefreshLifetime)
}

func (r *Record) accessValid(now time.Time, margin time.Duration) bool {
	return r.AccessToken != "" && (r.Expiry.IsZero() || r.Expiry.Sub(now) > margin)
}

// apply takes a token fresh from the token endpoint. Spotify may or may not send a new refresh
// token: a new one replaces the old, none keeps the old.
func (r *Record) apply(tok *oauth2.Token) {
	r.AccessToken = tok.AccessToken
	r.TokenType = tok.TokenType
	r.Expiry = tok.Expiry
	if tok.RefreshToken != "" {
		r.RefreshToken = tok.RefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		r.Scopes = strings.Fields(s)
	}
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

// SaveRecord writes a new sign-in to the token file, atomically and under its lock.
func SaveRecord(path string, rec *Record) error {
	data, err := rec.marshal()
	if err != nil {
		return err
	}
	_, err = tokenstore.File{Path: path}.Update(func([]byte) ([]byte, error) { return data, nil })
	return err
}

// ReadRecord reads the token file.
func ReadRecord(path string) (*Record, error) {
	data, _, err := tokenstore.File{Path: path}.Read()
	if err != nil {
		return nil, err
	}
	return parseRecord(data)
}

// RemoveRecord deletes the token file.
func RemoveRecord(path string) error { return tokenstore.File{Path: path}.Remove() }
