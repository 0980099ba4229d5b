package googleserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

var testProduct = Product{Server: "drive", Name: "Google Drive", EndpointFlag: "drive-endpoint", Endpoint: "https://www.googleapis.com/drive/v3/"}

// open builds an account the way a server's Setup does, from command-line flags.
func open(t *testing.T, args ...string) (*Account, error) {
	t.Helper()
	var f Flags
	cfg, err := config.Parse("drive", 9006, args, func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	var acct *Account
	_, err = kit.New(kit.Spec{Name: "drive", Port: 9006, Setup: func(s *kit.Server) error {
		var err error
		acct, err = Open(s, &f, testProduct)
		return err
	}}, cfg, io.Discard)
	return acct, err
}

func TestOpen(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none.json")
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantHealth string
	}{
		{"signed in", googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), "https://www.googleapis.com/auth/drive"), "", health.OK},
		{"never signed in", []string{"--google-token-file", missing, "--google-client-file", missing}, "", health.Warn},
		{"bad concurrency", []string{"--max-concurrent", "0"}, "--max-concurrent 0", ""},
		{"bad endpoint", []string{"--drive-endpoint", "ftp://x"}, "--drive-endpoint", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acct, err := open(t, tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(acct.Endpoint, "/") || acct.HTTP == nil {
				t.Errorf("account = %+v", acct)
			}
			if tt.wantHealth != "" {
				if got := acct.Health(context.Background()); got.Status != tt.wantHealth {
					t.Errorf("health = %+v, want %s", got, tt.wantHealth)
				}
			}
		})
	}
}

func TestFail(t *testing.T) {
	t.Parallel()
	acct := &Account{product: testProduct}
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"not found", &APIError{Code: 404, Message: "File not found"}, kit.CodeNotFound, "file abc not found"},
		{"gone", &APIError{Code: 410}, kit.CodeNotFound, "file abc not found"},
		{"bad request", &APIError{Code: 400, Message: "Invalid query"}, kit.CodeInvalidInput, "Google Drive refused the request: Invalid query"},
		{"read-only scope", &APIError{Code: 403, Message: "Request had insufficient authentication scopes."}, kit.CodeUnavailable, "run `drive auth login` without --read-only"},
		{"read-only scope of the default", &APIError{Code: 403, Message: "Request had insufficient authentication scopes.", Account: "default"}, kit.CodeUnavailable, "run `drive auth login` without --read-only"},
		{"read-only scope of another account", &APIError{Code: 403, Message: "Request had insufficient authentication scopes.", Account: "work"}, kit.CodeUnavailable, "run `drive auth login --account work` without --read-only"},
		{"rate limited", &APIError{Code: 429}, kit.CodeLimit, "rate-limiting"},
		{"rate limit as 403", &APIError{Code: 403, Message: "User rate limit exceeded"}, kit.CodeLimit, "rate-limiting"},
		{"server error", &APIError{Code: 503, Message: "Backend Error"}, kit.CodeUnavailable, "failed (503 Backend Error) after retries"},
		{"other status", &APIError{Code: 409, Message: "Conflict"}, kit.CodeUnavailable, "answered 409: Conflict"},
		{"sign-in", fmt.Errorf("call: %w", &oauth.SignInError{Provider: "Google", State: oauth.StateMissing, Fix: "drive auth login"}), kit.CodeUnavailable, "drive auth login"},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), kit.CodeTimeout, "did not answer in time"},
		{"already a tool error", kit.Errorf(kit.CodeLimit, "too big"), kit.CodeLimit, "too big"},
		{"transport", errors.New("connection reset"), kit.CodeUnavailable, "Google Drive call failed: connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := acct.Fail(tt.err, "file abc")
			var ke *kit.Error
			if !errors.As(err, &ke) || ke.Code != tt.wantCode || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Fail = %v (%T), want code %s with %q", err, err, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// TestUpstreamMetrics: calls through the account's client reach the API signed in, retried,
// and counted in the server's /metrics under the product's service.
func TestUpstreamMetrics(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		n := len(auths)
		mu.Unlock()
		switch {
		case r.URL.Path == "/missing":
			w.WriteHeader(http.StatusNotFound)
		case n == 1: // the first call is rate-limited once
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer api.Close()
	var f Flags
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), "https://www.googleapis.com/auth/drive")
	cfg, err := config.Parse("drive", 9006, args, func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	var acct *Account
	s, err := kit.New(kit.Spec{Name: "drive", Port: 9006, Setup: func(s *kit.Server) error {
		acct, err = Open(s, &f, testProduct)
		return err
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/files", "/missing"} {
		resp, err := acct.HTTP.Get(api.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for i, a := range auths {
		if a != "Bearer live-token" {
			t.Errorf("request %d sent Authorization %q, want the signed-in token", i+1, a)
		}
	}
	rec := httptest.NewRecorder()
	s.Metrics().Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{
		`mcp_upstream_calls_total{service="drive",status="2xx"} 1`,
		`mcp_upstream_calls_total{service="drive",status="4xx"} 1`,
		`mcp_upstream_retries_total{reason="rate_limited",service="drive"} 1`,
		`mcp_upstream_rate_limit_waits_total{service="drive"} 1`,
		`mcp_upstream_call_duration_seconds_count{service="drive"} 2`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, rec.Body.String())
		}
	}
}
