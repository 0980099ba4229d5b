package config

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	creds := t.TempDir()
	if err := os.WriteFile(filepath.Join(creds, "auth-tokens"), []byte("a:0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c *Config)
	}{
		{"defaults", nil, nil, func(t *testing.T, c *Config) {
			if c.Addr() != "127.0.0.1:9003" || c.Transport != TransportHTTP || c.LogLevel != slog.LevelInfo || c.ReadOnly {
				t.Errorf("defaults = %+v", c)
			}
		}},
		{"env fallback", nil, map[string]string{"MCP_PORT": "9100", "MCP_READ_ONLY": "true", "MCP_ALLOWED_HOSTS": "a.example.com, b.example.com", "MCP_INSECURE_NO_AUTH": "true"}, func(t *testing.T, c *Config) {
			if c.Port != 9100 || !c.ReadOnly || strings.Join(c.AllowedHosts, "|") != "a.example.com|b.example.com" {
				t.Errorf("env not applied: %+v", c)
			}
		}},
		{"flag beats env", []string{"--port", "9200"}, map[string]string{"MCP_PORT": "9100"}, func(t *testing.T, c *Config) {
			if c.Port != 9200 {
				t.Errorf("port = %d, want the flag's 9200", c.Port)
			}
		}},
		{"systemd credential", nil, map[string]string{"CREDENTIALS_DIRECTORY": creds}, func(t *testing.T, c *Config) {
			if c.AuthTokensFile != filepath.Join(creds, "auth-tokens") {
				t.Errorf("tokens file = %q", c.AuthTokensFile)
			}
		}},
		{"systemd state directory", nil, map[string]string{"STATE_DIRECTORY": "/var/lib/mcp/calculator:/other"}, func(t *testing.T, c *Config) {
			if c.StateDir != "/var/lib/mcp/calculator" {
				t.Errorf("state dir = %q", c.StateDir)
			}
		}},
		{"home state directory", nil, map[string]string{"HOME": "/home/u"}, func(t *testing.T, c *Config) {
			if c.StateDir != "/home/u/.local/state/mcp-servers/calculator" {
				t.Errorf("state dir = %q", c.StateDir)
			}
		}},
		{"public with insecure flag", []string{"--host", "0.0.0.0", "--insecure-no-auth"}, nil, func(t *testing.T, c *Config) {
			if !c.InsecureNoAuth {
				t.Error("insecure not set")
			}
		}},
		{"stdio needs no auth anywhere", []string{"--host", "0.0.0.0", "--transport", "stdio", "--allowed-hosts", "mcp.example.com"}, nil, func(t *testing.T, c *Config) {}},
		{"loopback names need no auth", []string{"--allowed-hosts", "localhost:9003,127.0.0.2,[::1]:9003"}, nil, func(t *testing.T, c *Config) {}},
		{"a tunnel host with tokens", []string{"--allowed-hosts", "mcp.example.com", "--auth-tokens-file", "/etc/tokens"}, nil, func(t *testing.T, c *Config) {}},
		{"a tunnel host, knowingly open", []string{"--allowed-hosts", "mcp.example.com", "--insecure-no-auth"}, nil, func(t *testing.T, c *Config) {}},
		{"log level", []string{"--log-level", "DEBUG"}, nil, func(t *testing.T, c *Config) {
			if c.LogLevel != slog.LevelDebug {
				t.Errorf("level = %v", c.LogLevel)
			}
		}},
		{"admin token hash, as sha256sum prints it in upper case", nil, map[string]string{"MCP_ADMIN_TOKEN_SHA256": " " + strings.Repeat("AB", 32) + "\n"}, func(t *testing.T, c *Config) {
			if c.AdminTokenHash != strings.Repeat("ab", 32) {
				t.Errorf("hash = %q", c.AdminTokenHash)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("calculator", 9003, tt.args, func(k string) string { return tt.env[k] }, io.Discard, nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"port zero", []string{"--port", "0"}, nil, "must be 1 to 65535"},
		{"port text", []string{"--port", "x"}, nil, "invalid value"},
		{"transport", []string{"--transport", "sse"}, nil, "use streamable-http or stdio"},
		{"level", []string{"--log-level", "trace"}, nil, "--log-level"},
		{"empty host", []string{"--host", ""}, nil, "invalid --host"},
		{"host with scheme", []string{"--allowed-hosts", "https://x.example.com"}, nil, "without scheme"},
		{"origin without scheme", []string{"--allowed-origins", "x.example.com"}, nil, "scheme://host"},
		{"origin with path", []string{"--allowed-origins", "https://x.example.com/app"}, nil, "scheme://host"},
		{"tiny body limit", []string{"--max-body-bytes", "10"}, nil, "at least 1024"},
		{"lan without auth", []string{"--host", "192.168.1.110"}, nil, "refusing to serve"},
		{"tunnel host without auth", []string{"--allowed-hosts", "mcp-shell.example.com"}, nil, "refusing to accept Host mcp-shell.example.com (--allowed-hosts) without authentication"},
		{"LAN address allowed without auth", []string{"--allowed-hosts", "localhost,192.168.1.110:9001"}, nil, "give --auth-tokens-file"},
		{"tunnel host from the environment", nil, map[string]string{"MCP_ALLOWED_HOSTS": "mcp.example.com"}, "--insecure-no-auth"},
		{"env bool", nil, map[string]string{"MCP_INSECURE_NO_AUTH": "yes please"}, "MCP_INSECURE_NO_AUTH"},
		{"positional", []string{"extra"}, nil, "unexpected argument"},
		{"admin token instead of its hash", []string{"--admin-token-sha256", "the-console-token-itself"}, nil, "never the token itself"},
		{"issuer without public url", []string{"--oauth-issuer", "https://auth.example.com"}, nil, "needs --public-url"},
		{"public url alone", []string{"--public-url", "https://gmail.example.com"}, nil, "only used with --oauth-issuer"},
		{"plain http issuer", []string{"--oauth-issuer", "http://auth.example.com", "--public-url", "https://g.example.com"}, nil, "use https"},
		{"relative public url", []string{"--oauth-issuer", "https://auth.example.com", "--public-url", "gmail.example.com"}, nil, "absolute URL"},
		{"issuer with query", []string{"--oauth-issuer", "https://auth.example.com/?x=1", "--public-url", "https://g.example.com"}, nil, "without query"},
		{"issuer from env checked", nil, map[string]string{"MCP_OAUTH_ISSUER": "ftp://auth.example.com", "MCP_PUBLIC_URL": "https://g.example.com"}, "absolute URL"},
		{"internal url alone", []string{"--oauth-issuer-internal-url", "http://127.0.0.1:9002"}, nil, "only used with --oauth-issuer"},
		{"internal url over plain http off loopback", []string{"--oauth-issuer", "https://auth.example.com", "--public-url", "https://g.example.com", "--oauth-issuer-internal-url", "http://10.0.0.5:9002"}, nil, "use https"},
		{"internal url over plain http to a LAN name", []string{"--oauth-issuer", "https://auth.example.com", "--public-url", "https://g.example.com", "--oauth-issuer-internal-url", "http://auth.lan:9002"}, nil, "use https"},
		{"internal url over plain http to a public name", []string{"--oauth-issuer", "https://auth.example.com", "--public-url", "https://g.example.com", "--oauth-issuer-internal-url", "http://auth.example.com"}, nil, "use https"},
		{"internal url with a path", []string{"--oauth-issuer", "https://auth.example.com", "--public-url", "https://g.example.com", "--oauth-issuer-internal-url", "http://127.0.0.1:9002/x"}, nil, "scheme://host[:port] only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("calculator", 9003, tt.args, func(k string) string { return tt.env[k] }, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestOAuthFlags(t *testing.T) {
	c, err := Parse("gmail", 9005, []string{"--host", "192.168.1.110", "--oauth-issuer", "https://auth.example.com/", "--public-url", "https://gmail.example.com/"}, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatalf("OAuth alone should satisfy the LAN auth requirement: %v", err)
	}
	if c.OAuthIssuer != "https://auth.example.com" || c.PublicURL != "https://gmail.example.com" {
		t.Errorf("trailing slashes kept: %q %q", c.OAuthIssuer, c.PublicURL)
	}
	if _, err := Parse("gmail", 9005, []string{"--oauth-issuer", "http://127.0.0.1:9002", "--public-url", "http://localhost:9005"}, func(string) string { return "" }, io.Discard, nil); err != nil {
		t.Errorf("http on loopback: %v", err)
	}
	env := map[string]string{"MCP_OAUTH_ISSUER": "https://auth.example.com", "MCP_PUBLIC_URL": "https://gmail.example.com",
		"MCP_OAUTH_ISSUER_INTERNAL_URL": "http://127.0.0.1:9002/"}
	c, err = Parse("gmail", 9005, nil, func(k string) string { return env[k] }, io.Discard, nil)
	if err != nil || c.OAuthIssuerURL != "http://127.0.0.1:9002" {
		t.Errorf("internal URL from the environment: %q %v", c.OAuthIssuerURL, err)
	}
	// A container network's names may be reached over plain http: a compose service, a
	// Kubernetes Service by its short or full name.
	for _, internal := range []string{"http://auth:9002", "http://auth.mcp-servers.svc:9002", "http://auth.mcp-servers.svc.cluster.local:9002", "https://auth.example.com"} {
		if _, err := Parse("gmail", 9005, []string{"--host", "0.0.0.0", "--oauth-issuer", "https://auth.example.com", "--public-url", "https://gmail.example.com",
			"--oauth-issuer-internal-url", internal}, func(string) string { return "" }, io.Discard, nil); err != nil {
			t.Errorf("internal URL %s: %v", internal, err)
		}
	}
}

func TestServerFlags(t *testing.T) {
	t.Parallel()
	var policy string
	extra := func(fs *flag.FlagSet) { fs.StringVar(&policy, "policy", "blocklist", "command policy") }
	if _, err := Parse("shell", 9001, nil, func(k string) string { return map[string]string{"MCP_POLICY": "allowlist"}[k] }, io.Discard, extra); err != nil {
		t.Fatal(err)
	}
	if policy != "allowlist" {
		t.Errorf("server flag from env = %q, want allowlist", policy)
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.8.9.1": true, "::1": true, "[::1]": true,
		"0.0.0.0": false, "192.168.1.110": false, "example.com": false, "": false, "localhost.evil.example": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
