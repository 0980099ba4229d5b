package spotifyauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthlogin"
	"golang.org/x/oauth2"
)

// LoginOptions configure Login.
type LoginOptions struct {
	Client     *oauth2.Config // the app's client; Login sets scopes and redirect URL on a copy
	Scopes     []string       // Scopes by default
	ListenAddr string         // loopback IP address for the redirect, "127.0.0.1:0" by default
	ShowDialog bool           // ask Spotify to show the consent page even when granted before
	In         io.Reader      // where the redirected URL is pasted
	Out        io.Writer      // instructions
	HTTPClient *http.Client   // for the token endpoint; nil means http.DefaultClient
	Now        func() time.Time
}

// Login runs the authorization-code flow with PKCE for a headless host. Spotify accepts only
// loopback IP redirects (http://127.0.0.1:PORT/callback, never localhost), and the port must be
// registered in the app. Login prints the consent URL and waits for either the browser's
// redirect to its listener or the redirected URL pasted into In.
func Login(ctx context.Context, o LoginOptions) (*Record, error) {
	addr := o.ListenAddr
	if addr == "" {
		addr = oauthlogin.DefaultListenAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		return nil, fmt.Errorf("listen address %q: Spotify accepts only a loopback IP (127.0.0.1 or [::1]) redirect", addr)
	}
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = Scopes
	}
	var opts []oauth2.AuthCodeOption
	if o.ShowDialog {
		opts = append(opts, oauth2.SetAuthURLParam("show_dialog", "true"))
	}
	tok, conf, err := oauthlogin.Run(ctx, oauthlogin.Options{
		Provider:    "Spotify",
		Client:      o.Client,
		Scopes:      scopes,
		AuthOptions: opts,
		ListenAddr:  addr,
		ListenHint:  "choose another --port and register it in the app",
		Announce: func(w io.Writer, redirectURL string) {
			fmt.Fprintf(w, "The Spotify app must list this redirect URI exactly: %s\n\n", redirectURL)
		},
		SignedIn:   "Signed in to Spotify. You can close this tab and return to the terminal.",
		In:         o.In,
		Out:        o.Out,
		HTTPClient: o.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("no refresh token came back from Spotify; run the login again")
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	rec := &Record{ClientID: conf.ClientID, Scopes: scopes, SignedIn: now()}
	rec.apply(tok)
	return rec, nil
}
