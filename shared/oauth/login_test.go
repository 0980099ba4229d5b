package oauth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

func TestLoginListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, tt := range []struct {
		p    *Provider
		hint string
	}{{Google, "(choose another --port)"}, {Spotify, "(choose another --port and register it in the app)"}} {
		_, _, err := tt.p.login(t.Context(), loginOptions{Client: &oauth2.Config{}, Port: port, Out: io.Discard})
		if err == nil || !strings.HasSuffix(err.Error(), tt.hint) {
			t.Errorf("%s: err = %v", tt.p.Name, err)
		}
	}
}

func TestLoginContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := Google.login(ctx, loginOptions{Client: &oauth2.Config{}, Out: io.Discard})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "sign-in not finished") {
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
		err := checkRedirect("P", q, "s")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.q, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, errRetryPaste) != c.retry {
			t.Errorf("%s: err = %v", c.q, err)
		}
	}
}

func TestReadPasted(t *testing.T) {
	results := make(chan url.Values, 4)
	errs := make(chan error, 4)
	readPasted(strings.NewReader("\n  http://127.0.0.1:1/callback?code=a&state=b  \ncode=c\njunk\n"), results, errs)
	if q := <-results; q.Get("code") != "a" || q.Get("state") != "b" {
		t.Errorf("first = %v", q)
	}
	if q := <-results; q.Get("code") != "c" {
		t.Errorf("second = %v", q)
	}
	if err := <-errs; !errors.Is(err, errRetryPaste) {
		t.Errorf("junk: %v", err)
	}
}

func TestCallbackHandler(t *testing.T) {
	results := make(chan url.Values, 1)
	h := callbackHandler("A<cme>", results)
	for range 2 { // the second finds results full and must not block
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=x", nil))
		if rec.Body.String() != "<!doctype html><title>A&lt;cme&gt; sign-in</title><p>Signed in to A&lt;cme&gt;. You can close this tab and return to the terminal.</p>" {
			t.Errorf("page = %q", rec.Body.String())
		}
	}
	if q := <-results; q.Get("code") != "x" {
		t.Errorf("query = %v", q)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?error=access_denied", nil))
	if !strings.Contains(rec.Body.String(), "A&lt;cme&gt; refused the sign-in: access_denied") {
		t.Errorf("refusal page = %q", rec.Body.String())
	}
}

func TestRandomState(t *testing.T) {
	a, b := randomState(), randomState()
	if a == b || len(a) != 32 {
		t.Errorf("states %q %q", a, b)
	}
}
