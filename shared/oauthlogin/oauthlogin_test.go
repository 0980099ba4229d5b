package oauthlogin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeProvider is a token endpoint that checks the PKCE verifier against the consent URL's challenge.
type fakeProvider struct {
	srv       *httptest.Server
	mu        sync.Mutex
	challenge string
}

func newFake(t *testing.T) *fakeProvider {
	f := &fakeProvider{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		challenge := f.challenge
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if r.FormValue("code") != "good" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "a", "refresh_token": "r", "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) client() *oauth2.Config {
	return &oauth2.Config{ClientID: "cid", Endpoint: oauth2.Endpoint{AuthURL: f.srv.URL + "/auth", TokenURL: f.srv.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}}
}

// outputs collects what Run prints, one Fprintf a message.
type outputs chan string

func (o outputs) Write(p []byte) (int, error) { o <- string(p); return len(p), nil }

// rest is what was printed and not read yet.
func (o outputs) rest() string {
	var b strings.Builder
	for {
		select {
		case m := <-o:
			b.WriteString(m)
		default:
			return b.String()
		}
	}
}

// consentURL waits for the printed consent URL and records its PKCE challenge.
func (f *fakeProvider) consentURL(t *testing.T, out outputs) url.Values {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-out:
			for _, line := range strings.Split(m, "\n") {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, f.srv.URL+"/auth?") {
					u, err := url.Parse(l)
					if err != nil {
						t.Fatal(err)
					}
					f.mu.Lock()
					f.challenge = u.Query().Get("code_challenge")
					f.mu.Unlock()
					return u.Query()
				}
			}
		case <-timeout:
			t.Fatal("no consent URL printed")
		}
	}
}

func TestRunPasted(t *testing.T) {
	f := newFake(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	out := make(outputs, 100)
	type result struct {
		tok  *oauth2.Token
		conf *oauth2.Config
		err  error
	}
	done := make(chan result, 1)
	var announced string
	go func() {
		tok, conf, err := Run(t.Context(), Options{
			Provider: "Acme", Client: f.client(), Scopes: []string{"s1", "s2"},
			AuthOptions: []oauth2.AuthCodeOption{oauth2.AccessTypeOffline},
			Announce:    func(w io.Writer, redirect string) { announced = redirect },
			In:          pr, Out: out, HTTPClient: f.srv.Client(),
		})
		done <- result{tok, conf, err}
	}()
	q := f.consentURL(t, out)
	if q.Get("access_type") != "offline" || q.Get("code_challenge_method") != "S256" || q.Get("scope") != "s1 s2" || q.Get("state") == "" {
		t.Fatalf("consent URL query = %v", q)
	}
	redirect := q.Get("redirect_uri")
	_, _ = io.WriteString(pw, "nonsense\n")
	_, _ = io.WriteString(pw, redirect+"?code=good&state=stale\n")
	_, _ = io.WriteString(pw, redirect+"?code=good&state="+url.QueryEscape(q.Get("state"))+"\n")
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.tok.AccessToken != "a" || r.tok.RefreshToken != "r" || r.conf.RedirectURL != redirect || announced != redirect {
		t.Errorf("tok %+v, redirect %q, announced %q", r.tok, r.conf.RedirectURL, announced)
	}
	printed := out.rest()
	for _, want := range []string{"paste the address that starts with http://127.0.0.1; paste it again", "state does not match this sign-in", "paste the whole address again"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
}

func TestRunLoopbackRefused(t *testing.T) {
	f := newFake(t)
	out := make(outputs, 100)
	done := make(chan error, 1)
	go func() {
		_, _, err := Run(t.Context(), Options{Provider: "Acme", Client: f.client(), SignedIn: "Done.", Out: out})
		done <- err
	}()
	q := f.consentURL(t, out)
	resp, err := http.Get(q.Get("redirect_uri") + "?error=access_denied&state=" + url.QueryEscape(q.Get("state")))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "<title>Acme sign-in</title>") || !strings.Contains(string(body), "Acme refused the sign-in: access_denied") {
		t.Errorf("page = %s", body)
	}
	if err := <-done; err == nil || err.Error() != "sign-in refused by Acme: access_denied" {
		t.Errorf("err = %v", err)
	}
}

func TestRunListenError(t *testing.T) {
	_, _, err := Run(context.Background(), Options{Client: &oauth2.Config{}, ListenAddr: "256.0.0.1:1", ListenHint: "choose another --port", Out: io.Discard})
	if err == nil || !strings.HasSuffix(err.Error(), "(choose another --port)") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Run(ctx, Options{Client: &oauth2.Config{}, Out: io.Discard})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckRedirect(t *testing.T) {
	for _, c := range []struct {
		q     string
		retry bool
		want  string
	}{
		{"error=access_denied", false, "sign-in refused by P: access_denied"},
		{"state=s", true, "no code= parameter"},
		{"code=c&state=x", true, "state does not match"},
		{"code=c&state=s", false, ""},
	} {
		q, _ := url.ParseQuery(c.q)
		err := CheckRedirect("P", q, "s")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.q, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrRetryPaste) != c.retry {
			t.Errorf("%s: err = %v", c.q, err)
		}
	}
}

func TestReadPasted(t *testing.T) {
	results := make(chan url.Values, 4)
	errs := make(chan error, 4)
	ReadPasted(strings.NewReader("\n  http://127.0.0.1:1/callback?code=a&state=b  \ncode=c\njunk\n"), results, errs)
	if q := <-results; q.Get("code") != "a" || q.Get("state") != "b" {
		t.Errorf("first = %v", q)
	}
	if q := <-results; q.Get("code") != "c" {
		t.Errorf("second = %v", q)
	}
	if err := <-errs; !errors.Is(err, ErrRetryPaste) {
		t.Errorf("junk: %v", err)
	}
}

func TestCallbackHandler(t *testing.T) {
	results := make(chan url.Values, 1)
	h := CallbackHandler("Acme", "Signed in <ok>.", results)
	for range 2 { // the second finds results full and must not block
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=x", nil))
		if rec.Body.String() != "<!doctype html><title>Acme sign-in</title><p>Signed in &lt;ok&gt;.</p>" {
			t.Errorf("page = %q", rec.Body.String())
		}
	}
	if q := <-results; q.Get("code") != "x" {
		t.Errorf("query = %v", q)
	}
}

func TestRandomState(t *testing.T) {
	a, b := RandomState(), RandomState()
	if a == b || len(a) != 32 {
		t.Errorf("states %q %q", a, b)
	}
}

func TestDispatch(t *testing.T) {
	var called []string
	sub := func(name string) Subcommand {
		return func(_ context.Context, args []string, _, _ io.Writer) int {
			called = append(called, name+":"+strings.Join(args, ","))
			return 7
		}
	}
	cmd := Dispatch("srv", Usage{Login: "sign in", Status: "show it", Logout: "sign out"}, sub("login"), sub("status"), sub("logout"))
	var out, errb bytes.Buffer
	if code := cmd(t.Context(), []string{"status", "--json"}, &out, &errb); code != 7 || called[0] != "status:--json" {
		t.Errorf("status: %d %v", code, called)
	}
	if code := cmd(t.Context(), nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: srv auth login|status|logout") {
		t.Errorf("no args: %d %q", code, errb.String())
	}
	for _, h := range []string{"help", "--help", "-h"} {
		out.Reset()
		want := "usage: srv auth login|status|logout [flags]\n  srv auth login    sign in\n  srv auth status   show it\n  srv auth logout   sign out\nEach takes --help for its flags.\n"
		if code := cmd(t.Context(), []string{h}, &out, &errb); code != 0 || out.String() != want {
			t.Errorf("%s: %d %q, want %q", h, code, out.String(), want)
		}
	}
	errb.Reset()
	if code := cmd(t.Context(), []string{"bogus"}, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), `srv auth: unknown command "bogus"`) {
		t.Errorf("bogus: %d %q", code, errb.String())
	}
}

func TestFiles(t *testing.T) {
	var f Files
	var errb bytes.Buffer
	fs := f.FlagSet("srv", "status", &errb, FileFlags{Token: "x-token-file", TokenUsage: "tok", Client: "x-client-file", ClientUsage: "cli"})
	if err := fs.Parse([]string{"--x-token-file", "/t/token.json"}); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	f.Resolve(getenv, func(func(string) string) string { return "/default/token.json" },
		func(_ func(string) string, token string) string { return token + ".client" })
	if f.Token != "/t/token.json" || f.Client != "/t/token.json.client" {
		t.Errorf("files = %+v", f)
	}
	if err := fs.Parse([]string{"-h"}); ExitParse(err) != 0 || !strings.Contains(errb.String(), "srv auth status") {
		t.Errorf("help: %v %q", err, errb.String())
	}
	if ExitParse(errors.New("bad")) != 2 || ExitParse(flag.ErrHelp) != 0 {
		t.Error("ExitParse")
	}
	if OrUnknown("") != "(unknown account)" || OrUnknown("a") != "a" {
		t.Error("OrUnknown")
	}
}

func TestPrintStatus(t *testing.T) {
	var b bytes.Buffer
	if code := PrintStatus(&b, true, map[string]string{"state": "ok"}, func() { t.Error("text in JSON mode") }, "msg", true); code != 0 || b.String() != "{\n  \"state\": \"ok\"\n}\n" {
		t.Errorf("json: %d %q", code, b.String())
	}
	b.Reset()
	if code := PrintStatus(&b, false, nil, func() { b.WriteString("state: bad\n") }, "fix it", false); code != 1 || b.String() != "state: bad\nfix it\n" {
		t.Errorf("text: %d %q", code, b.String())
	}
}
