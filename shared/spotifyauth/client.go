// Package spotifyauth is the fleet's Spotify sign-in: the app's client ID from a small JSON
// file, a headless-friendly authorization-code login with PKCE to a loopback IP redirect (paste
// the redirected URL, or let a browser reach the listener), a token source that persists every
// rotated refresh token atomically and turns invalid_grant into one "re-authorize" error, and
// the HTTP client Web API calls go through (sign-in, bounded retries, a concurrency limit).
package spotifyauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Spotify's accounts service. Tests point AccountsURL elsewhere.
const (
	AccountsURL = "https://accounts.spotify.com"
	authPath    = "/authorize"
	tokenPath   = "/api/token"
)

// Scopes are what the spotify server asks for: playback, history, playlists and library.
var Scopes = []string{
	"user-read-playback-state",
	"user-modify-playback-state",
	"user-read-currently-playing",
	"user-read-recently-played",
	"user-top-read",
	"playlist-read-private",
	"playlist-read-collaborative",
	"playlist-modify-private",
	"playlist-modify-public",
	"user-library-read",
	"user-library-modify",
}

// clientFile is the app's client: client_id is required; client_secret is optional (PKCE needs none).
type clientFile struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// ParseClient reads the client JSON into a config for the accounts service at accountsURL
// (AccountsURL when empty), without scopes or redirect URL.
func ParseClient(data []byte, accountsURL string) (*oauth2.Config, error) {
	var f clientFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a Spotify client JSON: %w", err)
	}
	if strings.TrimSpace(f.ClientID) == "" {
		return nil, errors.New(`not a Spotify client JSON: no "client_id" (copy it from the app's settings at developer.spotify.com/dashboard; see docs/spotify.md)`)
	}
	if accountsURL == "" {
		accountsURL = AccountsURL
	}
	base := strings.TrimSuffix(accountsURL, "/")
	return &oauth2.Config{
		ClientID:     strings.TrimSpace(f.ClientID),
		ClientSecret: strings.TrimSpace(f.ClientSecret),
		Endpoint:     oauth2.Endpoint{AuthURL: base + authPath, TokenURL: base + tokenPath, AuthStyle: oauth2.AuthStyleInParams},
	}, nil
}

// LoadClient reads the client JSON at path.
func LoadClient(path, accountsURL string) (*oauth2.Config, error) {
	data, err := tokenstore.ReadSecret(path) // refuses a client file others can read or replace
	if err != nil {
		return nil, fmt.Errorf("read the Spotify client: %w", err)
	}
	conf, err := ParseClient(data, accountsURL)
	if err != nil {
		return nil, fmt.Errorf("the Spotify client %s: %w", path, err)
	}
	return conf, nil
}
