package googleauth

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
	addr := o.ListenAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the sign-in redirect: %w (choose another --port)", addr, err)
	}
	defer ln.Close()
	conf := *o.Client
	conf.Scopes = o.Scopes
	conf.RedirectURL = "http://" + ln.Addr().String() + "/callback"
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	authURL := conf.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.ApprovalForce, oauth2.S256ChallengeOption(verifier))

	fmt.Fprintf(o.Out, "Open this address in a browser on any device and allow access:\n\n  %s\n\n", authURL)
	fmt.Fprintf(o.Out, "The browser is then sent to %s?… — which may fail to load: that is expected.\n", conf.RedirectURL)
	fmt.Fprintf(o.Out, "Copy that whole address from the address bar and paste it here (or let a browser on this machine reach it):\n")
	if o.OpenBrowser != nil {
		if err := o.OpenBrowser(authURL); err != nil {
			fmt.Fprintf(o.Out, "(could not open a browser here: %v)\n", err)
		}
	}

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

// errRetryPaste marks a pasted line that was not a usable redirect; the user may paste again.
var errRetryPaste = errors.New("not the redirected address")

// checkRedirect validates the redirect's query: Google's error, the state, the code.
func checkRedirect(q url.Values, state string) error {
	if e := q.Get("error"); e != "" {
		return fmt.Errorf("sign-in refused by Google: %s", e)
	}
	if q.Get("code") == "" {
		return fmt.Errorf("%w: it has no code= parameter", errRetryPaste)
	}
	if q.Get("state") != state {
		return fmt.Errorf("%w: its state does not match this sign-in (an old or foreign address?)", errRetryPaste)
	}
	return nil
}

// readPasted turns pasted lines into redirect queries: a whole URL, or its ?query part.
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
		msg := "Signed in. You can close this tab and return to the terminal."
		if e := r.URL.Query().Get("error"); e != "" {
			msg = "Google refused the sign-in: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>Google sign-in</title><p>%s</p>", html.EscapeString(msg))
	})
	return mux
}

func randomState() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
