package kit

import (
	"context"

	"github.com/jck411/mcp-servers/shared/admin"
)

// SignIn is an outside account the server calls with (Google, Spotify) that the owner's console
// can sign in and out through the server's admin surface: the server holds the OAuth client, the
// PKCE verifier and the token file, so none of them leaves it. shared/oauth implements it.
type SignIn interface {
	// Provider names it: google or spotify.
	Provider() string
	// Accounts lists the accounts signed in, with their state.
	Accounts(ctx context.Context) []admin.Account
	// Start begins a sign-in and returns the consent URL to open.
	Start(ctx context.Context, req admin.SignInRequest) (admin.SignInAnswer, error)
	// Finish ends a started sign-in with the address the provider sent the browser to, and
	// saves the token where the server reads it.
	Finish(ctx context.Context, req admin.SignInRequest) (admin.SignInAnswer, error)
	// SignOut signs an account out: the grant is revoked where the provider can, and the token
	// file removed.
	SignOut(ctx context.Context, label string) (admin.SignInAnswer, error)
}

// AddSignIn lets the console sign the server's outside accounts in and out (googleserver.Open
// and the spotify server call it).
func (s *Server) AddSignIn(si SignIn) { s.signIns = append(s.signIns, si) }
