package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

const spotifyAccounts = "https://accounts.spotify.com"

// spotifyReadScopes let the spotify server read playback, history, playlists and the library;
// a --read-only server needs no more.
var spotifyReadScopes = []string{
	"user-read-playback-state", "user-read-currently-playing", "user-read-recently-played", "user-top-read",
	"playlist-read-private", "playlist-read-collaborative", "user-library-read",
}

// spotifyScopes add control of playback and changes to playlists and the library.
var spotifyScopes = append(slices.Clone(spotifyReadScopes),
	"user-modify-playback-state", "playlist-modify-private", "playlist-modify-public", "user-library-modify")

// Spotify is the spotify server's sign-in: authorization code with PKCE to a loopback IP
// redirect registered in the app; refresh tokens rotate, and Spotify ends every sign-in six
// months after consent (from 2026-07-20; rotation does not extend it).
var Spotify = &Provider{
	Name: "Spotify", ID: "spotify", Doc: "docs/spotify.md",
	Endpoint:    oauth2.Endpoint{AuthURL: spotifyAccounts + "/authorize", TokenURL: spotifyAccounts + "/api/token"},
	AccountsURL: spotifyAccounts,
	NoRevoke:    "Spotify has no revoke endpoint: to withdraw the grant too, remove the app at https://www.spotify.com/account/apps/.",
	ParseClient: parseSpotifyClient,
	ClientHelp:  `the app's client JSON {"client_id": …}`,
	NewClient: "Create an app in the Spotify developer dashboard (https://developer.spotify.com/dashboard) " +
		`with the redirect URI http://127.0.0.1:{port}/callback, then save {"client_id": "…"} with its Client ID.`,
	Services:           map[string]Scopes{"spotify": {Full: spotifyScopes, ReadOnly: spotifyReadScopes}},
	ShowDialog:         "show_dialog",
	DefaultPort:        8888,
	RedirectRegistered: true, // and only a loopback IP literal, never localhost
	Lifetime:           183 * 24 * time.Hour,
	ExpiringWithin:     14 * 24 * time.Hour,
	EndsBecause:        "Spotify ends sign-ins six months after consent",
	RevokedHint:        "Spotify ends sign-ins six months after consent",
	APIURL:             "https://api.spotify.com/v1/",
	Account:            spotifyAccount,
	Concurrent:         4,
	MaxRetryAfter:      20 * time.Second,
}

// parseSpotifyClient reads {"client_id": …, "client_secret": …}; the secret is optional (PKCE needs none).
func parseSpotifyClient(data []byte, ep oauth2.Endpoint) (*oauth2.Config, error) {
	var f struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a Spotify client JSON: %w", err)
	}
	if strings.TrimSpace(f.ClientID) == "" {
		return nil, errors.New(`not a Spotify client JSON: no "client_id" (copy it from the app's settings at developer.spotify.com/dashboard; see docs/spotify.md)`)
	}
	return &oauth2.Config{ClientID: strings.TrimSpace(f.ClientID), ClientSecret: strings.TrimSpace(f.ClientSecret), Endpoint: ep}, nil
}

// spotifyAccount asks the Web API who signed in: "Display Name (id)", or "" when it cannot tell.
func spotifyAccount(ctx context.Context, hc *http.Client, api string, tok *oauth2.Token) string {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(api, "/")+"/me", nil)
	if err != nil {
		return ""
	}
	tok.SetAuthHeader(req)
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var me struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 64<<10)).Decode(&me) != nil {
		return ""
	}
	if me.DisplayName != "" && me.DisplayName != me.ID {
		return me.DisplayName + " (" + me.ID + ")"
	}
	return me.ID
}
