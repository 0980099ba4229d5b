package oauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/retry"
	"golang.org/x/oauth2"
)

const googleScope = "https://www.googleapis.com/auth/"

// Google is the sign-in gmail, calendar, drive and notes share: one consent, one token file.
var Google = &Provider{
	Name: "Google", ID: "google", Doc: "docs/google.md",
	Endpoint:    oauth2.Endpoint{AuthURL: "https://accounts.google.com/o/oauth2/auth", TokenURL: "https://oauth2.googleapis.com/token"},
	RevokeURL:   "https://oauth2.googleapis.com/revoke",
	ParseClient: parseGoogleClient,
	ClientHelp:  "the OAuth client JSON, Desktop app type",
	NewClient: "Create one in the Google Cloud console (https://console.cloud.google.com/apis/credentials): " +
		"Create credentials → OAuth client ID → Application type: Desktop app, then Download JSON.",
	Shared: true, MultiAccount: true,
	Services: map[string]Scopes{
		"gmail":    {Full: []string{googleScope + "gmail.modify", googleScope + "gmail.settings.basic"}, ReadOnly: []string{googleScope + "gmail.readonly"}},
		"calendar": {Full: []string{googleScope + "calendar"}, ReadOnly: []string{googleScope + "calendar.readonly"}},
		"drive":    {Full: []string{googleScope + "drive"}, ReadOnly: []string{googleScope + "drive.readonly"}},
		"notes":    {Full: []string{googleScope + "drive.file"}, ReadOnly: []string{googleScope + "drive.file"}},
		// Not servers of their own: calendar's tasks toolset and gmail's contacts toolset
		// (which only reads) need these, asked for when a sign-in names them.
		"tasks":    {Full: []string{googleScope + "tasks"}, ReadOnly: []string{googleScope + "tasks.readonly"}},
		"contacts": {Full: []string{googleScope + "contacts.readonly", googleScope + "contacts.other.readonly"}, ReadOnly: []string{googleScope + "contacts.readonly", googleScope + "contacts.other.readonly"}},
	},
	BaseScopes: []string{"email", "openid"}, // so the token names its account
	ShortScope: func(s string) string {
		if s == "openid" || s == "email" || strings.HasSuffix(s, "userinfo.email") {
			return ""
		}
		return strings.TrimPrefix(s, googleScope)
	},
	AuthParams:     []oauth2.AuthCodeOption{oauth2.AccessTypeOffline, oauth2.ApprovalForce}, // always a refresh token
	ExpiringWithin: 24 * time.Hour,
	EndsBecause:    "Google ends it: the OAuth app is in Testing; publish it, docs/google.md",
	Account: func(_ context.Context, _ *http.Client, _ string, tok *oauth2.Token) string {
		return emailFromIDToken(tok)
	},
	Concurrent: 5,
	Retryable:  googleRetryable,
}

// parseGoogleClient reads the JSON the Google Cloud console downloads for an OAuth client
// ("installed", i.e. Desktop app, or "web"); its auth_uri and token_uri replace ep's.
func parseGoogleClient(data []byte, ep oauth2.Endpoint) (*oauth2.Config, error) {
	type secrets struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthURI      string `json:"auth_uri"`
		TokenURI     string `json:"token_uri"`
	}
	var f struct{ Installed, Web *secrets }
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not an OAuth client JSON: %w", err)
	}
	c := f.Installed
	if c == nil {
		c = f.Web
	}
	if c == nil || c.ClientID == "" {
		return nil, errors.New(`not an OAuth client JSON: no "installed" or "web" client with a client_id (download it from the Google Cloud console: APIs & Services → Credentials → OAuth client, type Desktop app)`)
	}
	if c.AuthURI != "" {
		ep.AuthURL = c.AuthURI
	}
	if c.TokenURI != "" {
		ep.TokenURL = c.TokenURI
	}
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Endpoint: ep}, nil
}

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

// googleRetryable is retry.DefaultRetryable plus Google's 403 answers that mean "slow down"
// (rateLimitExceeded, userRateLimitExceeded), which Gmail sends as well as 429.
func googleRetryable(req *http.Request, resp *http.Response) bool {
	if retry.DefaultRetryable(req, resp) {
		return true
	}
	if resp.StatusCode != http.StatusForbidden {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil && (bytes.Contains(body, []byte(`"rateLimitExceeded"`)) || bytes.Contains(body, []byte(`"userRateLimitExceeded"`)))
}
