package guard

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	h := NewHosts("192.168.1.110", []string{"mcp-calc.example.com"}, nil)
	tests := map[string]bool{
		"127.0.0.1:9003":           true,
		"localhost:9003":           true,
		"localhost":                true,
		"[::1]:9003":               true,
		"192.168.1.110:9003":       true,
		"mcp-calc.example.com":     true,
		"MCP-CALC.example.com:443": true,
		"evil.example":             false,
		"evil.example:9003":        false,
		"localhost.evil.example":   false,
		"192.168.1.111:9003":       false,
		"":                         false,
	}
	for host, want := range tests {
		if got := h.HostAllowed(host); got != want {
			t.Errorf("HostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	if NewHosts("0.0.0.0", nil, nil).HostAllowed("0.0.0.0:9003") {
		t.Error("a wildcard bind address must not become an allowed Host")
	}
}

func TestOriginAllowed(t *testing.T) {
	t.Parallel()
	h := NewHosts("127.0.0.1", nil, []string{"https://app.example.com"})
	tests := map[string]bool{
		"":                              true, // MCP clients send none
		"http://localhost:9003":         true,
		"http://127.0.0.1:9003":         true,
		"https://app.example.com":       true,
		"https://app.example.com/":      true,
		"https://evil.example":          false,
		"http://app.example.com":        false,
		"null":                          false,
		"file://":                       false,
		"http://localhost.evil.example": false,
	}
	for origin, want := range tests {
		if got := h.OriginAllowed(origin); got != want {
			t.Errorf("OriginAllowed(%q) = %v, want %v", origin, got, want)
		}
	}
}

func TestLoadTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"good", "# comment\n\nbackend: 0123456789abcdef0123\nlaptop:abcdefabcdefabcdef\n", ""},
		{"trailing comments and whitespace", "  # indented comment\n\t\nbackend:0123456789abcdef0123   # openssl rand -hex 32\n  laptop : abcdefabcdefabcdef\t#phone\r\n", ""},
		{"space inside token", "backend:0123456789 abcdef0123\n", `line 1: token for "backend" is followed by "abcdef0123"`},
		{"text after the token that is not a comment", "laptop:abcdefabcdefabcdef\nbackend:0123456789abcdef0123 x # y\n", `line 2: token for "backend" is followed by "x # y"`},
		{"no colon", "backend 0123456789abcdef0123\n", "want label:token"},
		{"short token", "backend:short\n", "shorter than 16"},
		{"duplicate label", "a:0123456789abcdef\na:abcdefabcdefabcdef\n", "appears twice"},
		{"empty", "# nothing\n", "no label:token lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tokens")
			if err := os.WriteFile(p, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			tok, err := LoadTokens(p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l, ok := tok.Label("0123456789abcdef0123"); !ok || l != "backend" {
				t.Errorf("Label = %q %v, want backend", l, ok)
			}
			if l, ok := tok.Label("abcdefabcdefabcdef"); !ok || l != "laptop" {
				t.Errorf("Label = %q %v, want laptop", l, ok)
			}
			for _, bad := range []string{"", "0123456789abcdef012", "0123456789abcdef01234", "backend"} {
				if _, ok := tok.Label(bad); ok {
					t.Errorf("Label(%q) accepted", bad)
				}
			}
		})
	}
}

// TestLoadTokensMissing: a tokens file that is not there, or whose folder is not, is named with
// the command that makes one, never a bare lstat error.
func TestLoadTokensMissing(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "auth-tokens"), filepath.Join(dir, "nope", "auth-tokens")} {
		_, err := LoadTokens(p)
		if err == nil {
			t.Fatalf("%s: want an error", p)
		}
		for _, want := range []string{"auth tokens file " + p + " does not exist", "openssl rand -hex 32", "> " + p + ")", "or leave out --auth-tokens-file"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nwant %q", p, err, want)
			}
		}
		if strings.Contains(err.Error(), "lstat") {
			t.Errorf("%s: %v: the bare lstat error", p, err)
		}
	}
}

// TestLoadTokensPermissions: a tokens file others can read, or whose folder others can write,
// is refused with the fix; a private file in a folder others may only list is fine.
func TestLoadTokensPermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		dirMode  os.FileMode
		fileMode os.FileMode
		wantErr  string
	}{
		{"private", 0o700, 0o600, ""},
		{"private file, listable folder", 0o755, 0o600, ""},
		{"read-only file", 0o700, 0o400, ""},
		{"readable by all", 0o700, 0o644, "chmod 600"},
		{"readable by its group", 0o700, 0o640, "chmod 600"},
		{"folder writable by others", 0o777, 0o600, "chmod 700"},
		{"folder writable by its group", 0o770, 0o600, "chmod 700"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "creds")
			p := filepath.Join(dir, "auth-tokens")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("laptop:0123456789abcdef0123\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tt.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			_, err := LoadTokens(p)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("LoadTokens: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("LoadTokens: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// FuzzHostAllowed checks that whatever the Host header, only loopback names and the listed
// host are ever let through.
func FuzzHostAllowed(f *testing.F) {
	for _, s := range []string{"127.0.0.1:9003", "localhost", "[::1]:1", "mcp.example.com:443", "evil.example", "127.0.0.1.evil.example", "[::1", "a:b:c", "LOCALHOST:80", "%31%32%37.0.0.1"} {
		f.Add(s)
	}
	h := NewHosts("127.0.0.1", []string{"mcp.example.com"}, nil)
	f.Fuzz(func(t *testing.T, host string) {
		if !h.HostAllowed(host) {
			return
		}
		name := strings.ToLower(host)
		if i := strings.LastIndex(name, ":"); i >= 0 && !strings.HasSuffix(name, "]") && strings.Count(name, ":") == 1 {
			name = name[:i]
		}
		name = strings.Trim(strings.SplitN(name, "]:", 2)[0], "[]")
		ok := name == "mcp.example.com" || name == "localhost" || strings.HasPrefix(name, "127.") || name == "::1" || strings.HasPrefix(name, "0:0:0:0:0:0:0:1") || strings.Contains(name, "::")
		if !ok {
			t.Fatalf("HostAllowed(%q) let through a name that is neither loopback nor listed (%q)", host, name)
		}
	})
}

// TestRefusedReasons: each middleware names why it refused, and says nothing when it lets
// the request through.
func TestRefusedReasons(t *testing.T) {
	tokens, err := parseTokens("test", strings.NewReader("alice:0123456789abcdef0123456789abcdef\n"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := NewHosts("127.0.0.1", []string{"mcp.example.com"}, nil)
	var got []string
	refused := func(reason string) { got = append(got, reason) }
	hosts.Refused = refused
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := hosts.Middleware(NewGate(true, false, refused).Require(tokens, ok))
	tests := []struct {
		name    string
		host    string
		headers map[string]string
		want    string // the reason, "" when let through
		code    int
	}{
		{"no token", "127.0.0.1:9003", nil, ReasonMissingToken, http.StatusUnauthorized},
		{"basic auth", "127.0.0.1:9003", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, ReasonMissingToken, http.StatusUnauthorized},
		{"wrong token", "127.0.0.1:9003", map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdee"}, ReasonInvalidToken, http.StatusUnauthorized},
		{"evil host", "evil.example", map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdef"}, ReasonHost, http.StatusForbidden},
		{"evil origin", "mcp.example.com", map[string]string{"Origin": "https://evil.example"}, ReasonOrigin, http.StatusForbidden},
		{"good", "mcp.example.com", map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdef"}, "", http.StatusNoContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			req := httptest.NewRequest(http.MethodPost, "http://"+tt.host+"/mcp", nil)
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.code {
				t.Errorf("status %d, want %d", rec.Code, tt.code)
			}
			want := []string{tt.want}
			if tt.want == "" {
				want = nil
			}
			if !slices.Equal(got, want) {
				t.Errorf("refused reasons %v, want %v", got, want)
			}
		})
	}
}

// TestHostMiddleware: the public-document guard checks Host and ignores Origin.
func TestHostMiddleware(t *testing.T) {
	h := NewHosts("127.0.0.1", []string{"mcp.example.com"}, nil)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	cases := []struct {
		host, origin string
		want         int
	}{
		{"mcp.example.com", "https://any.example", http.StatusNoContent},
		{"127.0.0.1:9000", "", http.StatusNoContent},
		{"evil.example.com", "", http.StatusForbidden},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(http.MethodGet, "/.well-known/x", nil)
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		rec := httptest.NewRecorder()
		h.HostMiddleware(ok).ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Host %s Origin %q: %d, want %d", tc.host, tc.origin, rec.Code, tc.want)
		}
	}
}
