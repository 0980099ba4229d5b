// Package oauthlogin is the provider-neutral half of the fleet's headless OAuth sign-ins: the
// authorization-code flow with PKCE and state, finished either by the browser's redirect to a
// loopback listener or by the redirected URL pasted into the terminal, plus the plumbing the
// `NAME auth login|status|logout` commands share. Providers (googleauth, spotifyauth) supply the
// client, scopes, extra consent-URL parameters and the wording.
package oauthlogin

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Options configure Run.
type Options struct {
	Provider    string                                // the provider's name in messages: "Google", "Spotify"
	Client      *oauth2.Config                        // the OAuth client; Run sets scopes and redirect URL on a copy
	Scopes      []string                              // the scopes asked for
	AuthOptions []oauth2.AuthCodeOption               // extra consent-URL parameters (PKCE and state are added)
	ListenAddr  string                                // loopback address for the redirect, "127.0.0.1:0" by default
	ListenHint  string                                // appended to a listen error, e.g. "choose another --port"
	Announce    func(w io.Writer, redirectURL string) // prints provider notes before the consent URL; may be nil
	SignedIn    string                                // the callback page's text on success
	In          io.Reader                             // where the redirected URL is pasted; nil: the listener only
	Out         io.Writer                             // instructions
	OpenBrowser func(string) error                    // opens the consent URL on this machine; nil prints it only
	HTTPClient  *http.Client                          // for the token endpoint; nil means http.DefaultClient
}

// DefaultListenAddr is the loopback address used when Options.ListenAddr is empty.
const DefaultListenAddr = "127.0.0.1:0"

// Run prints the consent URL, waits for the redirect (on the listener or pasted into In),
// checks its state and exchanges the code with the PKCE verifier. It returns the token and the
// client config it used (with the scopes and redirect URL set).
func Run(ctx context.Context, o Options) (*oauth2.Token, *oauth2.Config, error) {
	addr := o.ListenAddr
	if addr == "" {
		addr = DefaultListenAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s for the sign-in redirect: %w (%s)", addr, err, o.ListenHint)
	}
	defer ln.Close()
	conf := *o.Client
	conf.Scopes = o.Scopes
	conf.RedirectURL = "http://" + ln.Addr().String() + "/callback"
	verifier := oauth2.GenerateVerifier()
	state := RandomState()
	opts := append(append([]oauth2.AuthCodeOption(nil), o.AuthOptions...), oauth2.S256ChallengeOption(verifier))
	authURL := conf.AuthCodeURL(state, opts...)

	if o.Announce != nil {
		o.Announce(o.Out, conf.RedirectURL)
	}
	fmt.Fprintf(o.Out, "Open this address in a browser on any device and allow access:\n\n  %s\n\n", authURL)
	fmt.Fprintf(o.Out, "The browser is then sent to %s?… — which may fail to load: that is expected.\n", conf.RedirectURL)
	fmt.Fprintf(o.Out, "Copy that whole address from the address bar and paste it here (or let a browser on this machine reach it):\n")
	if o.OpenBrowser != nil {
		if err := o.OpenBrowser(authURL); err != nil {
			fmt.Fprintf(o.Out, "(could not open a browser here: %v)\n", err)
		}
	}

	results := make(chan url.Values, 2)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: CallbackHandler(o.Provider, o.SignedIn, results)}
	go func() { _ = srv.Serve(ln) }()
	defer shutdown(srv)
	q, err := wait(ctx, o, state, results)
	if err != nil {
		return nil, nil, err
	}

	if o.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, nil, fmt.Errorf("exchange the authorization code: %w", err)
	}
	return tok, &conf, nil
}

// shutdown stops the callback server, letting a request in flight (the redirect just taken)
// finish its page, but waiting for it a short while only.
func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		_ = srv.Close()
	}
}

// wait returns the first redirect query with the right state, from the listener or from In.
func wait(ctx context.Context, o Options, state string, results chan url.Values) (url.Values, error) {
	pasteErr := make(chan error, 1)
	if o.In != nil {
		go ReadPasted(o.In, results, pasteErr)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sign-in not finished: %w", ctx.Err())
		case err := <-pasteErr:
			if !errors.Is(err, ErrRetryPaste) {
				return nil, err
			}
			fmt.Fprintf(o.Out, "%v; paste it again:\n", err)
		case v := <-results:
			if err := CheckRedirect(o.Provider, v, state); err != nil {
				if errors.Is(err, ErrRetryPaste) {
					fmt.Fprintf(o.Out, "%v; paste the whole address again:\n", err)
					continue
				}
				return nil, err
			}
			return v, nil
		}
	}
}

// ErrRetryPaste marks a pasted line that was not a usable redirect; the user may paste again.
var ErrRetryPaste = errors.New("not the redirected address")

// CheckRedirect validates the redirect's query: the provider's error, the code, the state.
func CheckRedirect(provider string, q url.Values, state string) error {
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("sign-in refused by %s: %s", provider, e)
	}
	if q.Get("code") == "" {
		return fmt.Errorf("%w: it has no code= parameter", ErrRetryPaste)
	}
	if q.Get("state") != state {
		return fmt.Errorf("%w: its state does not match this sign-in (an old or foreign address?)", ErrRetryPaste)
	}
	return nil
}

// ReadPasted turns pasted lines into redirect queries: a whole URL, or its ?query part. A line
// that is neither is an ErrRetryPaste on errs; a read error ends it.
func ReadPasted(in io.Reader, results chan<- url.Values, errs chan<- error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 8<<10), 64<<10)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		raw := line
		if i := strings.IndexByte(line, '?'); i >= 0 {
			raw = line[i+1:]
		}
		q, err := url.ParseQuery(raw)
		if err != nil || (q.Get("code") == "" && q.Get("error") == "") {
			errs <- fmt.Errorf("%w: paste the address that starts with http://127.0.0.1", ErrRetryPaste)
			continue
		}
		results <- q
	}
	if err := sc.Err(); err != nil {
		errs <- fmt.Errorf("read the pasted address: %w", err)
	}
}

// CallbackHandler serves GET /callback: it hands the query to results (when there is room) and
// shows signedIn, or the provider's refusal, in the browser.
func CallbackHandler(provider, signedIn string, results chan<- url.Values) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		select {
		case results <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := signedIn
		if e := r.URL.Query().Get("error"); e != "" {
			msg = provider + " refused the sign-in: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>%s sign-in</title><p>%s</p>", html.EscapeString(provider), html.EscapeString(msg))
	})
	return mux
}

// RandomState is a fresh, unguessable state parameter.
func RandomState() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
