package admin

import (
	"context"
	"net/http"
	"time"
)

// Paths of a server's sign-ins to Google or Spotify, on the servers that have one. Tokens stay
// with the server that owns them: the console starts and finishes a sign-in here and never
// sees a token.
const (
	PathAccounts        = "/admin/accounts"         // GET: Accounts
	PathAccountsStart   = "/admin/accounts/start"   // POST SignInStart: SignInStarted
	PathAccountsFinish  = "/admin/accounts/finish"  // POST SignInFinish: SignedIn
	PathAccountsSignOut = "/admin/accounts/signout" // POST SignOut: Accounts after it
)

// Accounts is a server's sign-ins to one provider.
type Accounts struct {
	Provider     string    `json:"provider"`      // google, spotify
	ProviderName string    `json:"provider_name"` // Google, Spotify
	Service      string    `json:"service"`       // the server's own service, which a sign-in always covers
	Services     []string  `json:"services"`      // every service a sign-in may cover
	Shared       bool      `json:"shared"`        // one sign-in folder for several servers (Google)
	MultiAccount bool      `json:"multi_account"` // accounts besides the default one may sign in
	ShowDialog   bool      `json:"show_dialog"`   // the provider can be asked to show its consent page again
	ClientError  string    `json:"client_error,omitempty"`
	Redirect     string    `json:"redirect"` // the loopback address the provider sends the browser to
	Accounts     []Account `json:"accounts"`
}

// Account is one signed-in account's state; never its tokens.
type Account struct {
	Label    string    `json:"label"`             // default, or the label it signed in with
	State    string    `json:"state"`             // ok, expiring, expired, revoked, missing, …
	Account  string    `json:"account,omitempty"` // the provider's name for it: ada@example.com
	Services []string  `json:"services,omitempty"`
	ReadOnly bool      `json:"read_only,omitempty"` // its scopes are the read-only ones
	SignedIn time.Time `json:"signed_in,omitzero"`
	Ends     time.Time `json:"ends,omitzero"`     // when the provider ends the sign-in, when known
	Message  string    `json:"message,omitempty"` // what to do, when not ok
}

// SignInStart asks a server to start a sign-in.
type SignInStart struct {
	Label    string   `json:"label,omitempty"`    // "" or default for the default account
	Services []string `json:"services,omitempty"` // empty: the server's own plus those the account covers now
	ReadOnly bool     `json:"read_only,omitempty"`
	Dialog   bool     `json:"show_dialog,omitempty"` // ask the provider to show its consent page again (Spotify)
}

// SignInStarted is where the owner gives consent. The code verifier stays on the server.
type SignInStarted struct {
	Provider   string    `json:"provider_name"` // Google, Spotify
	ConsentURL string    `json:"consent_url"`
	Redirect   string    `json:"redirect"` // the address the browser is sent to afterwards, which may not load
	Label      string    `json:"label"`
	Services   []string  `json:"services"`
	Expires    time.Time `json:"expires"` // finish before this
}

// SignInFinish is the address the browser was sent to after consent, pasted by the owner.
type SignInFinish struct {
	Redirect string `json:"redirect"`
}

// SignedIn is the account a finished sign-in saved.
type SignedIn struct {
	Label   string    `json:"label"`
	Account string    `json:"account,omitempty"`
	Ends    time.Time `json:"ends,omitzero"`
}

// SignOut asks a server to sign an account out: revoke the grant where the provider can, and
// delete the token file.
type SignOut struct {
	Label string `json:"label,omitempty"`
}

// Accounts asks the server for its sign-ins.
func (c *Client) Accounts(ctx context.Context) (Accounts, error) {
	var out Accounts
	return out, c.do(ctx, http.MethodGet, PathAccounts, nil, &out)
}

// StartSignIn starts a sign-in on the server.
func (c *Client) StartSignIn(ctx context.Context, req SignInStart) (SignInStarted, error) {
	var out SignInStarted
	return out, c.do(ctx, http.MethodPost, PathAccountsStart, req, &out)
}

// FinishSignIn finishes a sign-in the server started, with the redirected address.
func (c *Client) FinishSignIn(ctx context.Context, req SignInFinish) (SignedIn, error) {
	var out SignedIn
	return out, c.do(ctx, http.MethodPost, PathAccountsFinish, req, &out)
}

// SignOut signs an account out on the server.
func (c *Client) SignOut(ctx context.Context, req SignOut) (Accounts, error) {
	var out Accounts
	return out, c.do(ctx, http.MethodPost, PathAccountsSignOut, req, &out)
}
