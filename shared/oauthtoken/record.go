package oauthtoken

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Fields point at a record's token fields, for Apply.
type Fields struct {
	AccessToken, TokenType, RefreshToken *string
	Expiry                               *time.Time
	Scopes                               *[]string
}

// Apply takes a token fresh from a token endpoint into the record's fields: a new refresh token
// replaces the old, none keeps it; a "scope" answer replaces the scopes.
func (f Fields) Apply(tok *oauth2.Token) {
	*f.AccessToken = tok.AccessToken
	*f.TokenType = tok.TokenType
	*f.Expiry = tok.Expiry
	if tok.RefreshToken != "" {
		*f.RefreshToken = tok.RefreshToken
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		*f.Scopes = strings.Fields(s)
	}
}

// AccessValid reports whether an access token expiring at expiry is usable for at least margin
// more after now (a zero expiry never expires).
func AccessValid(access string, expiry, now time.Time, margin time.Duration) bool {
	return access != "" && (expiry.IsZero() || expiry.Sub(now) > margin)
}

// Parse reads a token file's JSON into a record; hasToken says whether it holds any token.
func Parse[R any](data []byte, hasToken func(*R) bool) (*R, error) {
	var r R
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("token file is not valid JSON: %w", err)
	}
	if !hasToken(&r) {
		return nil, errors.New("token file holds no token")
	}
	return &r, nil
}

// Marshal is a record as the token file holds it: indented JSON and a newline.
func Marshal(rec any) ([]byte, error) {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Save writes a record to the token file, atomically and under its lock.
func Save(path string, rec any) error {
	data, err := Marshal(rec)
	if err != nil {
		return err
	}
	_, err = tokenstore.File{Path: path}.Update(func([]byte) ([]byte, error) { return data, nil })
	return err
}

// Read reads and parses the token file.
func Read[R any](path string, parse func([]byte) (*R, error)) (*R, error) {
	data, _, err := tokenstore.File{Path: path}.Read()
	if err != nil {
		return nil, err
	}
	return parse(data)
}

// Remove deletes the token file.
func Remove(path string) error { return tokenstore.File{Path: path}.Remove() }
