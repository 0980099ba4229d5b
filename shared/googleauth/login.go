package googleauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthlogin"
	"golang.org/x/oauth2"
)

// LoginOptions configure Login.
type LoginOptions struct {
	Client      *oauth2.Config // the OAuth client; Login sets its scopes and redirect URL on a copy
	Scopes      []string
	ListenAddr  string             // loopback address for the redirect, "127.0.0.1:0" by default
	In          io.Reader          // where the redirected URL is pasted
	Out         io.Writer          // instructions
	OpenBrowser func(string) error // opens the consent URL on this machine; nil prints it only
	HTTPClient  *http.Client       // for the token endpoint; nil means http.DefaultClient
	Now         func() time.Time
}

// Login runs the authorization-code flow with PKCE for a headless host: it prints the consent
// URL and waits for either the browser's redirect to a loopback listener (a browser on this
// machine, or an ssh tunnel) or the redirected URL pasted into In (a browser anywhere else).
func Login(ctx context.Context, o LoginOptions) (*Record, error) {
	tok, conf, err := oauthlogin.Run(ctx, oauthlogin.Options{
		Provider:    "Google",
		Client:      o.Client,
		Scopes:      o.Scopes,
		AuthOptions: []oauth2.AuthCodeOption{oauth2.AccessTypeOffline, oauth2.ApprovalForce},
		ListenAddr:  o.ListenAddr,
		ListenHint:  "choose another --port",
		SignedIn:    "Signed in. You can close this tab and return to the terminal.",
		In:          o.In,
		Out:         o.Out,
		OpenBrowser: o.OpenBrowser,
		HTTPClient:  o.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("no refresh token came back from Google; run the login again (it asks for consent each time)")
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	rec := &Record{ClientID: conf.ClientID, Scopes: o.Scopes, SignedIn: now(), Account: emailFromIDToken(tok)}
	rec.apply(tok, rec.SignedIn)
	return rec, nil
}
