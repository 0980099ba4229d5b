package oauth

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
)

// TestLocate: where the token and client files are, by the rules the servers and their auth
// commands share. (The deployed host's /var/lib and /etc folders are left to the host tests.)
func TestLocate(t *testing.T) {
	for _, p := range []string{"/var/lib/mcp-servers/google", "/etc/mcp-servers/credentials/google/client.json", "/etc/mcp-servers/credentials/spotify/client.json"} {
		if _, err := os.Stat(p); err == nil {
			t.Skipf("%s exists: this host's deployed files take part", p)
		}
	}
	creds := t.TempDir()
	if err := os.WriteFile(filepath.Join(creds, "spotify_client.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		p        *Provider
		given    Files
		stateDir string
		env      map[string]string
		want     Files
	}{
		{"google under HOME", Google, Files{}, "/state/gmail", map[string]string{"HOME": "/home/u"},
			Files{"/home/u/.local/state/mcp-servers/google/token.json", "/home/u/.local/state/mcp-servers/google/client.json"}},
		{"google under XDG_STATE_HOME, not the server's state", Google, Files{}, "/state/gmail", map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/xdg"},
			Files{"/xdg/mcp-servers/google/token.json", "/xdg/mcp-servers/google/client.json"}},
		{"google from the environment", Google, Files{}, "", map[string]string{"MCP_GOOGLE_TOKEN_FILE": "/t.json", "MCP_GOOGLE_CLIENT_FILE": "/c.json"},
			Files{"/t.json", "/c.json"}},
		{"flags win", Google, Files{"/ft.json", "/fc.json"}, "", map[string]string{"MCP_GOOGLE_TOKEN_FILE": "/t.json", "MCP_GOOGLE_CLIENT_FILE": "/c.json"},
			Files{"/ft.json", "/fc.json"}},
		{"spotify in the given state folder", Spotify, Files{}, "/state/spotify", map[string]string{"HOME": "/home/u"},
			Files{"/state/spotify/token.json", "/state/spotify/client.json"}},
		{"spotify in $MCP_STATE_DIR", Spotify, Files{}, "", map[string]string{"HOME": "/home/u", "MCP_STATE_DIR": "/msd"},
			Files{"/msd/token.json", "/msd/client.json"}},
		{"spotify in systemd's state folder", Spotify, Files{}, "", map[string]string{"STATE_DIRECTORY": "/var/lib/x:/other"},
			Files{"/var/lib/x/token.json", "/var/lib/x/client.json"}},
		{"spotify under HOME", Spotify, Files{}, "", map[string]string{"HOME": "/home/u"},
			Files{"/home/u/.local/state/mcp-servers/spotify/token.json", "/home/u/.local/state/mcp-servers/spotify/client.json"}},
		{"spotify's systemd credential", Spotify, Files{}, "/s", map[string]string{"CREDENTIALS_DIRECTORY": creds},
			Files{"/s/token.json", filepath.Join(creds, "spotify_client.json")}},
		{"a credential that is not there: the file the unit loads it from", Google, Files{Token: "/g/token.json"}, "", map[string]string{"CREDENTIALS_DIRECTORY": creds},
			Files{"/g/token.json", "/etc/mcp-servers/credentials/google/client.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := tt.p.Locate("spotify", tt.given, tt.stateDir, getenv); got != tt.want {
				t.Errorf("Locate = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestLocateAgreesWithTheKit: a server's own token lies in the state folder the kit resolves
// for it (config.Parse), whether the auth command is given that folder or finds it itself.
func TestLocateAgreesWithTheKit(t *testing.T) {
	for _, env := range []map[string]string{
		{"HOME": "/home/u"},
		{"HOME": "/home/u", "XDG_STATE_HOME": "/xdg"},
		{"HOME": "/home/u", "MCP_STATE_DIR": "/msd"},
		{"STATE_DIRECTORY": "/var/lib/mcp-servers/spotify"},
		{},
	} {
		getenv := func(k string) string { return env[k] }
		cfg, err := config.Parse("spotify", 9010, nil, getenv, &strings.Builder{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		server := Spotify.Locate("spotify", Files{}, cfg.StateDir, getenv)
		command := Spotify.Locate("spotify", Files{}, "", getenv)
		if server != command || server.Token != filepath.Join(cfg.StateDir, "token.json") {
			t.Errorf("env %v: server %+v, command %+v, state dir %s", env, server, command, cfg.StateDir)
		}
	}
}

func TestScopes(t *testing.T) {
	tests := []struct {
		services []string
		readOnly bool
		want     string
	}{
		{[]string{"gmail"}, false, "email https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.settings.basic openid"},
		{[]string{"gmail", "calendar"}, true, "email https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/gmail.readonly openid"},
		{[]string{"drive", "notes"}, false, "email https://www.googleapis.com/auth/drive https://www.googleapis.com/auth/drive.file openid"},
		{[]string{"calendar", "tasks"}, false, "email https://www.googleapis.com/auth/calendar https://www.googleapis.com/auth/tasks openid"},
		{[]string{"calendar", "tasks"}, true, "email https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/tasks.readonly openid"},
		{[]string{"contacts", "gmail"}, false, "email https://www.googleapis.com/auth/contacts.other.readonly https://www.googleapis.com/auth/contacts.readonly https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.settings.basic openid"},
	}
	for _, tt := range tests {
		got, err := Google.scopesFor(tt.services, tt.readOnly)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("scopesFor(%v, %v) = %v, %v", tt.services, tt.readOnly, got, err)
		}
		if svc := Google.servicesOf(got); strings.Join(svc, ",") != strings.Join(slices.Sorted(slices.Values(tt.services)), ",") {
			t.Errorf("servicesOf = %v, want %v", svc, tt.services)
		}
	}
	if _, err := Google.scopesFor([]string{"photos"}, false); err == nil || !strings.Contains(err.Error(), "give any of calendar,contacts,drive,gmail,notes,tasks") {
		t.Errorf("unknown service: %v", err)
	}
	readOnly, _ := Google.scopesFor([]string{"gmail"}, true)
	if Google.covers(readOnly, "gmail", false) || !Google.covers(readOnly, "gmail", true) {
		t.Error("a read-only grant must cover gmail only for a --read-only server")
	}
	tasksRO, _ := Google.scopesFor([]string{"calendar", "tasks"}, true)
	if Google.Grants(tasksRO, "tasks", false) || !Google.Grants(tasksRO, "tasks", true) || Google.Grants(tasksRO, "contacts", true) {
		t.Error("Grants: tasks.readonly grants tasks to a --read-only server only, and no contacts")
	}
	if got, _ := Spotify.scopesFor([]string{"spotify"}, false); !slices.Equal(got, slices.Sorted(slices.Values(spotifyScopes))) {
		t.Errorf("spotify scopes %v", got)
	}
	// A read-only Spotify grant reads but can neither control playback nor change anything.
	spotifyRead, _ := Spotify.scopesFor([]string{"spotify"}, true)
	for _, sc := range spotifyRead {
		if strings.Contains(sc, "modify") {
			t.Errorf("read-only Spotify scopes include %s", sc)
		}
	}
	if len(spotifyRead) == 0 || Spotify.covers(spotifyRead, "spotify", false) || !Spotify.covers(spotifyRead, "spotify", true) {
		t.Errorf("read-only Spotify scopes %v must cover only a --read-only server", spotifyRead)
	}
}

func TestParseClient(t *testing.T) {
	tests := []struct {
		p         *Provider
		json      string
		id, token string
		wantErr   string
	}{
		{Google, `{"installed":{"client_id":"a.apps","client_secret":"s"}}`, "a.apps", Google.Endpoint.TokenURL, ""},
		{Google, `{"web":{"client_id":"w.apps","client_secret":"s","token_uri":"http://fake/token"}}`, "w.apps", "http://fake/token", ""},
		{Google, `{"other":{}}`, "", "", `no "installed" or "web" client`},
		{Google, `not json`, "", "", "not an OAuth client JSON"},
		{Spotify, `{"client_id":" abc "}`, "abc", "https://accounts.spotify.com/api/token", ""},
		{Spotify.WithAccountsURL("http://fake/"), `{"client_id":"abc"}`, "abc", "http://fake/api/token", ""},
		{Spotify, `{"client_secret":"s"}`, "", "", `no "client_id"`},
	}
	for _, tt := range tests {
		conf, err := tt.p.ParseClient([]byte(tt.json), tt.p.Endpoint)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s %s: err %v, want %q", tt.p.Name, tt.json, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || conf.ClientID != tt.id || conf.Endpoint.TokenURL != tt.token):
			t.Errorf("%s %s = %+v, %v", tt.p.Name, tt.json, conf, err)
		}
	}
}

// TestLoadClientRefusesOpenFiles: the OAuth client holds a secret; one others can read is refused.
func TestLoadClientRefusesOpenFiles(t *testing.T) {
	dir := privateDir(t)
	path := filepath.Join(dir, "client.json")
	for _, tt := range []struct {
		mode    os.FileMode
		wantErr string
	}{{0o600, ""}, {0o400, ""}, {0o640, "run chmod 600 " + path}, {0o644, "run chmod 600 " + path}} {
		if err := os.WriteFile(path, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, tt.mode); err != nil {
			t.Fatal(err)
		}
		conf, err := Spotify.loadClient(path)
		switch {
		case tt.wantErr == "" && (err != nil || conf.ClientID != "cid"):
			t.Errorf("mode %o: %v", tt.mode, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("mode %o: %v, want an error with %q", tt.mode, err, tt.wantErr)
		}
		_ = os.Remove(path)
	}
}

// TestExistingTokenFiles: token files written by the servers before this package (googleauth's
// and spotifyauth's records, byte for byte) still read, and a deployed sign-in stays usable.
func TestExistingTokenFiles(t *testing.T) {
	tests := []struct {
		name, file string
		p          *Provider
		service    string
		want       Record
	}{
		{"google", `{
  "account": "ada@example.com",
  "client_id": "cid.apps.googleusercontent.com",
  "scopes": [
    "email",
    "https://www.googleapis.com/auth/gmail.modify",
    "https://www.googleapis.com/auth/gmail.settings.basic",
    "openid"
  ],
  "access_token": "ya29.a0",
  "token_type": "Bearer",
  "refresh_token": "1//0g",
  "expiry": "2099-01-02T03:04:05.123456789Z",
  "refresh_token_expiry": "2099-02-01T00:00:00Z",
  "signed_in": "2026-11-01T10:00:00Z",
  "refreshed": "2026-11-20T10:00:00+01:00"
}
`, Google, "gmail", Record{Account: "ada@example.com", ClientID: "cid.apps.googleusercontent.com", AccessToken: "ya29.a0", TokenType: "Bearer", RefreshToken: "1//0g"}},
		{"spotify", `{
  "account": "Ada (ada)",
  "client_id": "0123456789abcdef",
  "scopes": [
    "user-read-playback-state"
  ],
  "access_token": "BQD",
  "token_type": "Bearer",
  "refresh_token": "AQB",
  "expiry": "2099-01-02T03:04:05Z",
  "signed_in": "2099-01-01T00:00:00Z"
}
`, Spotify, "", Record{Account: "Ada (ada)", ClientID: "0123456789abcdef", AccessToken: "BQD", TokenType: "Bearer", RefreshToken: "AQB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := signedIn(t, tt.p, time.Now(), "x")
			if err := os.WriteFile(files.Token, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			rec, err := ReadRecord(files.Token)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Account != tt.want.Account || rec.ClientID != tt.want.ClientID || rec.AccessToken != tt.want.AccessToken || rec.TokenType != tt.want.TokenType ||
				rec.RefreshToken != tt.want.RefreshToken || rec.Expiry.Year() != 2099 || rec.SignedIn.IsZero() || len(rec.Scopes) == 0 {
				t.Errorf("read %+v", rec)
			}
			src := NewSource(tt.p, SourceOptions{Files: files, Fix: "x auth login", Service: tt.service})
			if tok, err := src.Token(); err != nil || tok.AccessToken != tt.want.AccessToken {
				t.Errorf("Token = %v, %v", tok, err)
			}
			// Saved again, the file keeps the same fields and values.
			if err := SaveRecord(files.Token, rec); err != nil {
				t.Fatal(err)
			}
			again, _ := ReadRecord(files.Token)
			if again.Expiry != rec.Expiry || again.RefreshExpiry != rec.RefreshExpiry || again.Refreshed != rec.Refreshed || !slices.Equal(again.Scopes, rec.Scopes) {
				t.Errorf("round trip %+v != %+v", again, rec)
			}
		})
	}
}

// TestMissingClientErrorSaysWhatToDo: a file a unit loads as a credential needs a restart after
// it is saved; one the server reads itself does not.
func TestMissingClientErrorSaysWhatToDo(t *testing.T) {
	for _, tt := range []struct {
		path        string
		wantRestart bool
	}{
		{"/etc/mcp-servers/credentials/google/client.json", true},
		{"/home/u/.local/state/mcp-servers/google/client.json", false},
	} {
		err := (&MissingClientError{Provider: "Google", Path: tt.path, Flag: "--google-client-file", Env: "MCP_GOOGLE_CLIENT_FILE", Doc: "docs/google.md"}).Error()
		if !strings.Contains(err, "no Google OAuth client file at "+tt.path) || strings.Contains(err, "restart the server") != tt.wantRestart {
			t.Errorf("%s: %q (restart hint wanted: %v)", tt.path, err, tt.wantRestart)
		}
	}
}
