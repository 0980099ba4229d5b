package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// TestServerAndAuthCommandAgree: for each way the environment can place the state folder, a
// sign-in saved where `spotify auth status` looks is the one the server uses. (Before, the
// server honoured $MCP_STATE_DIR and the command did not, so `auth login` saved a token the
// server never read.)
func TestServerAndAuthCommandAgree(t *testing.T) {
	if _, err := os.Stat("/etc/mcp-servers/credentials/spotify/client.json"); err == nil {
		t.Skip("this host's deployed Spotify client takes part")
	}
	base := t.TempDir()
	tests := []struct {
		name  string
		env   func(dir string) map[string]string
		state func(dir string) string
	}{
		{"MCP_STATE_DIR", func(d string) map[string]string { return map[string]string{"HOME": base, "MCP_STATE_DIR": d} }, func(d string) string { return d }},
		{"STATE_DIRECTORY", func(d string) map[string]string { return map[string]string{"HOME": base, "STATE_DIRECTORY": d} }, func(d string) string { return d }},
		{"XDG_STATE_HOME", func(d string) map[string]string { return map[string]string{"HOME": base, "XDG_STATE_HOME": d} },
			func(d string) string { return filepath.Join(d, "mcp-servers", "spotify") }},
		{"HOME", func(d string) map[string]string { return map[string]string{"HOME": d} },
			func(d string) string { return filepath.Join(d, ".local", "state", "mcp-servers", "spotify") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := tt.env(dir)
			getenv := func(k string) string { return env[k] }
			state := tt.state(dir)
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(state, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(state, "client.json"), []byte(`{"client_id":"cid"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			token := filepath.Join(state, "token.json")
			rec := &oauth.Record{Account: "Me (me)", AccessToken: "live", RefreshToken: "r", Expiry: time.Now().Add(time.Hour), SignedIn: time.Now(), Scopes: oauth.Spotify.Services["spotify"].Full}
			if err := oauth.SaveRecord(token, rec); err != nil {
				t.Fatal(err)
			}

			sp := spec()
			cfg, err := config.Parse(sp.Name, sp.Port, nil, getenv, io.Discard, sp.Flags)
			if err != nil {
				t.Fatal(err)
			}
			s, err := kit.New(sp, cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := s.Health(t.Context()).Checks["spotify token"]; r.Status != health.OK || r.Detail != "ok: Me (me)" {
				t.Errorf("server: %+v; it does not use %s", r, token)
			}

			var out, errb bytes.Buffer
			if code := kit.Run(t.Context(), spec(), []string{"auth", "status", "--json"}, getenv, &out, &errb); code != 0 {
				t.Fatalf("auth status: exit %d %s\n%s", code, errb.String(), out.String())
			}
			var st oauth.Status
			if err := json.Unmarshal(out.Bytes(), &st); err != nil {
				t.Fatal(err)
			}
			if st.TokenFile != token || st.ClientFile != filepath.Join(state, "client.json") || st.Account != "Me (me)" {
				t.Errorf("auth status looks at %s and %s (account %q), the server at %s", st.TokenFile, st.ClientFile, st.Account, token)
			}
		})
	}
}
