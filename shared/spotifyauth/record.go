package spotifyauth

import (
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
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
	return oauthtoken.AccessValid(r.AccessToken, r.Expiry, now, margin)
}

// apply takes a token fresh from the token endpoint. Spotify may or may not send a new refresh
// token: a new one replaces the old, none keeps the old.
func (r *Record) apply(tok *oauth2.Token) {
	oauthtoken.Fields{AccessToken: &r.AccessToken, TokenType: &r.TokenType, RefreshToken: &r.RefreshToken, Expiry: &r.Expiry, Scopes: &r.Scopes}.Apply(tok)
}

func parseRecord(data []byte) (*Record, error) {
	return oauthtoken.Parse(data, func(r *Record) bool { return r.RefreshToken != "" || r.AccessToken != "" })
}

func (r *Record) marshal() ([]byte, error) { return oauthtoken.Marshal(r) }

// SaveRecord writes a new sign-in to the token file, atomically and under its lock.
func SaveRecord(path string, rec *Record) error { return oauthtoken.Save(path, rec) }

// ReadRecord reads the token file.
func ReadRecord(path string) (*Record, error) { return oauthtoken.Read(path, parseRecord) }

// RemoveRecord deletes the token file.
func RemoveRecord(path string) error { return oauthtoken.Remove(path) }
