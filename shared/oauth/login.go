package oauth

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
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// loginOptions configure login.
type loginOptions struct {
	Client      *oauth2.Config          // the OAuth client; login sets scopes and redirect URL on a copy
	Scopes      []string                // the scopes asked for
	AuthOptions []oauth2.AuthCodeOption // extra consent-URL parameters (PKCE and state are added)
	Port        int                     // loopback port for the redirect; 0 for any free one
	In          io.Reader               // where the redirected URL is pasted; nil: the listener only
	Out         io.Writer               // instructions
	OpenBrowser func(string) error      // opens the consent URL on this machine; nil prints it only
	HTTPClient  *http.Client            // for the token endpoint; nil means http.DefaultClient
}

// login runs the authorization-code flow with PKCE and state for a headless host: it prints the
// consent URL and waits for either the browser's redirect to a loopback listener (a browser on
// this machine, or an ssh tunnel) or the redirected URL pasted into In (a browser anywhere else),
// then exchanges the code. It returns the token and the client config it used.
func (p *Provider) login(ctx context.Context, o loginOptions) (*oauth2.Token, *oauth2.Config, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		hint := "choose another --port"
		if p.RedirectRegistered {
			hint += " and register it in the app"
		}
		return nil, nil, fmt.Errorf("listen on %s for the sign-in redirect: %w (%s)", addr, err, hint)
	}
	defer ln.Close()
	conf := *o.Client
	conf.Scopes = o.Scopes
	conf.RedirectURL = "http://" + ln.Addr().String() + "/callback"
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	opts := append(append(slices.Clone(p.AuthParams), o.AuthOptions...), oauth2.S256ChallengeOption(verifier))
	authURL := conf.AuthCodeURL(state, opts...)

	if p.RedirectRegistered {
		fmt.Fprintf(o.Out, "The %s app must list this redirect URI exactly: %s\n\n", p.Name, conf.RedirectURL)
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
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: callbackHandler(p.Name, results)}
	go func() { _ = srv.Serve(ln) }()
	defer shutdown(srv)
	q, err := wait(ctx, p.Name, o, state, results)
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
func wait(ctx context.Context, provider string, o loginOptions, state string, results chan url.Values) (url.Values, error) {
	pasteErr := make(chan error, 1)
	if o.In != nil {
		go readPasted(o.In, results, pasteErr)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sign-in not finished: %w", ctx.Err())
		case err := <-pasteErr:
			if !errors.Is(err, errRetryPaste) {
				return nil, err
			}
			fmt.Fprintf(o.Out, "%v; paste it again:\n", err)
		case v := <-results:
			if err := checkRedirect(provider, v, state); err != nil {
				if errors.Is(err, errRetryPaste) {
					fmt.Fprintf(o.Out, "%v; paste the whole address again:\n", err)
					continue
				}
				return nil, err
			}
			return v, nil
		}
	}
}

// errRetryPaste marks a pasted line that was not a usable redirect; the user may paste again.
var errRetryPaste = errors.New("not the redirected address")

// checkRedirect validates the redirect's query: the provider's error, the code, the state.
func checkRedirect(provider string, q url.Values, state string) error {
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("sign-in refused by %s: %s", provider, e)
	}
	if q.Get("code") == "" {
		return fmt.Errorf("%w: it has no code= parameter", errRetryPaste)
	}
	if q.Get("state") != state {
		return fmt.Errorf("%w: its state does not match this sign-in (an old or foreign address?)", errRetryPaste)
	}
	return nil
}

// readPasted turns pasted lines into redirect queries: a whole URL, or its ?query part. A line
// that is neither is an errRetryPaste on errs; a read error ends it.
func readPasted(in io.Reader, results chan<- url.Values, errs chan<- error) {
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
			errs <- fmt.Errorf("%w: paste the address that starts with http://127.0.0.1", errRetryPaste)
			continue
		}
		results <- q
	}
	if err := sc.Err(); err != nil {
		errs <- fmt.Errorf("read the pasted address: %w", err)
	}
}

// callbackHandler serves GET /callback: it hands the query to results (when there is room) and
// shows that the sign-in is done, or the provider's refusal, in the browser.
func callbackHandler(provider string, results chan<- url.Values) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		select {
		case results <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Signed in to " + provider + ". You can close this tab and return to the terminal."
		if e := r.URL.Query().Get("error"); e != "" {
			msg = provider + " refused the sign-in: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>%s sign-in</title><p>%s</p>", html.EscapeString(provider), html.EscapeString(msg))
	})
	return mux
}

// randomState is a fresh, unguessable state parameter.
func randomState() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
