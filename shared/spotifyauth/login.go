package spotifyauth

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
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		return nil, fmt.Errorf("listen address %q: Spotify accepts only a loopback IP (127.0.0.1 or [::1]) redirect", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the sign-in redirect: %w (choose another --port and register it in the app)", addr, err)
	}
	defer ln.Close()
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = Scopes
	}
	conf := *o.Client
	conf.Scopes = scopes
	conf.RedirectURL = "http://" + ln.Addr().String() + "/callback"
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if o.ShowDialog {
		opts = append(opts, oauth2.SetAuthURLParam("show_dialog", "true"))
	}
	authURL := conf.AuthCodeURL(state, opts...)

	fmt.Fprintf(o.Out, "The Spotify app must list this redirect URI exactly: %s\n\n", conf.RedirectURL)
	fmt.Fprintf(o.Out, "Open this address in a browser on any device and allow access:\n\n  %s\n\n", authURL)
	fmt.Fprintf(o.Out, "The browser is then sent to %s?… — which may fail to load: that is expected.\n", conf.RedirectURL)
	fmt.Fprintf(o.Out, "Copy that whole address from the address bar and paste it here (or let a browser on this machine reach it):\n")

	results := make(chan url.Values, 2)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: callbackHandler(results)}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	pasteErr := make(chan error, 1)
	if o.In != nil {
		go readPasted(o.In, results, pasteErr)
	}

	var q url.Values
	for q == nil {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sign-in not finished: %w", ctx.Err())
		case err := <-pasteErr:
			if !errors.Is(err, errRetryPaste) {
				return nil, err
			}
			fmt.Fprintf(o.Out, "%v; paste it again:\n", err)
		case v := <-results:
			if err := checkRedirect(v, state); err != nil {
				if errors.Is(err, errRetryPaste) {
					fmt.Fprintf(o.Out, "%v; paste the whole address again:\n", err)
					continue
				}
				return nil, err
			}
			q = v
		}
	}

	if o.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("exchange the authorization code: %w", err)
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

// errRetryPaste marks a pasted line that was not a usable redirect.
var errRetryPaste = errors.New("not the redirected address")

func checkRedirect(q url.Values, state string) error {
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("sign-in refused by Spotify: %s", e)
	}
	if q.Get("code") == "" {
		return fmt.Errorf("%w: it has no code= parameter", errRetryPaste)
	}
	if q.Get("state") != state {
		return fmt.Errorf("%w: its state does not match this sign-in (an old or foreign address?)", errRetryPaste)
	}
	return nil
}

// readPasted turns pasted lines (a whole URL, or its query) into redirect queries.
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

func callbackHandler(results chan<- url.Values) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		select {
		case results <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Signed in to Spotify. You can close this tab and return to the terminal."
		if e := r.URL.Query().Get("error"); e != "" {
			msg = "Spotify refused the sign-in: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>Spotify sign-in</title><p>%s</p>", html.EscapeString(msg))
	})
	return mux
}

func randomState() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
