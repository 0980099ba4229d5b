package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// run runs `server auth args…` with env as the environment and in as the terminal's input.
func run(t *testing.T, p *Provider, f *fakeProvider, server string, env map[string]string, in io.Reader, out io.Writer, args ...string) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	var hc *http.Client
	if f != nil {
		hc = f.srv.Client()
	}
	code := p.Command(server, hc)(t.Context(), args, func(k string) string { return env[k] }, in, out, &errb)
	return code, errb.String()
}

// TestLoginPasteTheURL: Google's sign-in over real HTTP, finished by pasting the redirected
// address; a foreign address (wrong state) is refused and may be pasted again. The record
// names the account from the ID token and covers the server plus the services already granted.
func TestLoginPasteTheURL(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1") // a sign-in for gmail exists
	env := map[string]string{"MCP_GOOGLE_TOKEN_FILE": files.Token, "MCP_GOOGLE_CLIENT_FILE": files.Client}
	pr, pw := io.Pipe()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		code, stderr := run(t, p, f, "calendar", env, pr, out, "login")
		if code != 0 {
			t.Errorf("stderr: %s", stderr)
		}
		done <- code
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	if !strings.Contains(out.String(), "Signing in for calendar, gmail (full scopes).") {
		t.Errorf("output lacks the services:\n%s", out.String())
	}
	consent := out.String()
	for _, want := range []string{"access_type=offline", "prompt=consent"} {
		if !strings.Contains(consent, want) {
			t.Errorf("consent URL lacks %s", want)
		}
	}
	_, _ = io.WriteString(pw, f.consent(t, consent, "forged-state")+"\n")
	waitFor(t, func() bool { return strings.Contains(out.String(), "state does not match") })
	_, _ = io.WriteString(pw, "  "+f.consent(t, consent, "")+"  \n")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	pw.Close()
	rec, err := ReadRecord(files.Token)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Account != "ada@example.com" || rec.RefreshToken != "refresh-1" || rec.AccessToken != "access-0" || rec.ClientID != "cid" {
		t.Errorf("record = %+v", rec)
	}
	if !p.covers(rec.Scopes, "gmail", false) || !p.covers(rec.Scopes, "calendar", false) {
		t.Errorf("scopes %v do not cover gmail and calendar", rec.Scopes)
	}
	if !strings.Contains(out.String(), "Signed in to Google as ada@example.com; token saved to "+files.Token) {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestLoginLoopbackRedirect: Spotify's sign-in finished by the browser reaching the login's
// listener on the registered port; the account comes from the API's /me, and the record's end
// date follows Spotify's six-month rule.
func TestLoginLoopbackRedirect(t *testing.T) {
	f := newFake(t)
	p := f.spotify()
	dir := privateDir(t)
	client := filepath.Join(dir, "client.json")
	if err := os.WriteFile(client, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MCP_STATE_DIR": dir}
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		code, stderr := run(t, p, f, "spotify", env, nil, out, "login", "--port", "0", "--show-dialog")
		if code != 2 {
			t.Errorf("--port 0 for a registered redirect: exit %d, %s", code, stderr)
		}
		port := freePort(t)
		code, stderr = run(t, p, f, "spotify", env, nil, out, "login", "--port", port, "--show-dialog")
		if code != 0 {
			t.Errorf("stderr: %s", stderr)
		}
		done <- code
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	printed := out.String()
	if !strings.Contains(printed, "The Spotify app must list this redirect URI exactly: http://127.0.0.1:") || !strings.Contains(printed, "show_dialog=true") {
		t.Errorf("output:\n%s", printed)
	}
	resp, err := http.Get(f.consent(t, printed, ""))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Signed in to Spotify") {
		t.Errorf("callback page %q", body)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	rec, err := ReadRecord(filepath.Join(dir, "token.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Account != "Ada (me)" || len(rec.Scopes) != len(spotifyScopes) {
		t.Errorf("record %+v", rec)
	}
	if want := "This sign-in ends " + time.Now().Add(183*24*time.Hour).Format(time.DateOnly); !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}

	// --read-only asks for the read scopes alone.
	out = &syncBuffer{}
	go func() {
		code, stderr := run(t, p, f, "spotify", env, nil, out, "login", "--read-only", "--port", freePort(t))
		if code != 0 {
			t.Errorf("stderr: %s", stderr)
		}
		done <- code
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	if !strings.Contains(out.String(), "Signing in for spotify (read-only scopes).") || strings.Contains(out.String(), "modify") {
		t.Errorf("read-only consent:\n%s", out.String())
	}
	resp, err = http.Get(f.consent(t, out.String(), ""))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if rec, err = ReadRecord(filepath.Join(dir, "token.json")); err != nil || !slices.Equal(rec.Scopes, slices.Sorted(slices.Values(spotifyReadScopes))) {
		t.Errorf("read-only record scopes %v (%v), want %v", rec.Scopes, err, spotifyReadScopes)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestLoginRefused: the provider's refusal at the consent page ends the login with its reason.
func TestLoginRefused(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1")
	env := map[string]string{"MCP_GOOGLE_TOKEN_FILE": files.Token, "MCP_GOOGLE_CLIENT_FILE": files.Client}
	out := &syncBuffer{}
	done := make(chan string, 1)
	go func() {
		_, stderr := run(t, p, f, "gmail", env, strings.NewReader(""), out, "login")
		done <- stderr
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	redirect := f.consent(t, out.String(), "")
	resp, err := http.Get(strings.Replace(redirect, "code=good-code", "error=access_denied", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if stderr := <-done; !strings.Contains(stderr, "gmail auth login: sign-in refused by Google: access_denied") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestCommandUsageAndMissingClient(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		p                  *Provider
		server             string
		env                map[string]string
		usage, missing     []string
		defaultClient, alt string
	}{
		{Google, "gmail", map[string]string{"MCP_GOOGLE_TOKEN_FILE": filepath.Join(dir, "g", "token.json")},
			[]string{"gmail auth login    sign in to Google (consent page in any browser) and save the token the Google servers share", "gmail auth status   show the sign-in", "gmail auth logout   revoke the grant at Google"},
			[]string{"--google-client-file or $MCP_GOOGLE_CLIENT_FILE", "https://console.cloud.google.com/apis/credentials", "Desktop app", "docs/google.md, section 1"},
			filepath.Join(dir, "g", "client.json"), "MCP_GOOGLE_CLIENT_FILE"},
		{Spotify, "spotify", map[string]string{"MCP_STATE_DIR": filepath.Join(dir, "s")},
			[]string{"spotify auth login    sign in to Spotify", "spotify auth logout   delete the token file (Spotify has no revoke endpoint)"},
			[]string{"--spotify-client-file or $MCP_SPOTIFY_CLIENT_FILE", "https://developer.spotify.com/dashboard", "http://127.0.0.1:8888/callback", "docs/spotify.md, section 1"},
			filepath.Join(dir, "s", "client.json"), "MCP_SPOTIFY_CLIENT_FILE"},
	} {
		t.Run(tt.server, func(t *testing.T) {
			var out bytes.Buffer
			if code, _ := run(t, tt.p, nil, tt.server, tt.env, nil, &out, "--help"); code != 0 {
				t.Fatalf("--help: exit %d", code)
			}
			for _, want := range tt.usage {
				if !strings.Contains(out.String(), want) {
					t.Errorf("usage lacks %q:\n%s", want, out.String())
				}
			}
			if code, stderr := run(t, tt.p, nil, tt.server, tt.env, nil, io.Discard); code != 2 || !strings.Contains(stderr, "usage:") {
				t.Errorf("no subcommand: exit %d, %q", code, stderr)
			}
			if code, stderr := run(t, tt.p, nil, tt.server, tt.env, nil, io.Discard, "lgoin"); code != 2 || !strings.Contains(stderr, `unknown command "lgoin"`) {
				t.Errorf("unknown subcommand: exit %d, %q", code, stderr)
			}
			if code, stderr := run(t, tt.p, nil, tt.server, tt.env, nil, io.Discard, "login", "--help"); code != 0 || !strings.Contains(stderr, "-timeout") {
				t.Errorf("login --help: exit %d, %q", code, stderr)
			}
			// A bad flag: one line naming it and --help, not the error around the whole usage.
			want := tt.server + " auth login: flag provided but not defined: -bogus (see " + tt.server + " auth login --help)\n"
			if code, stderr := run(t, tt.p, nil, tt.server, tt.env, nil, io.Discard, "login", "--bogus"); code != 2 || stderr != want {
				t.Errorf("login --bogus: exit %d, %q, want %q", code, stderr, want)
			}
			for _, client := range []string{tt.defaultClient, filepath.Join(dir, "elsewhere.json")} {
				env := map[string]string{tt.alt: client}
				for k, v := range tt.env {
					env[k] = v
				}
				if client == tt.defaultClient {
					delete(env, tt.alt)
				}
				code, stderr := run(t, tt.p, nil, tt.server, env, nil, io.Discard, "login")
				if code != 1 {
					t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
				}
				for _, want := range append(tt.missing, tt.server+" auth login: no "+tt.p.Name+" OAuth client file at "+client+".") {
					if !strings.Contains(stderr, want) {
						t.Errorf("message lacks %q:\n%s", want, stderr)
					}
				}
				if strings.Contains(stderr, "%!") {
					t.Errorf("message has a formatting error:\n%s", stderr)
				}
				// status names the missing client, not a missing sign-in or a raw lstat error.
				var out bytes.Buffer
				if code, _ := run(t, tt.p, nil, tt.server, env, nil, &out, "status"); code != 1 {
					t.Errorf("status without a client: exit %d, want 1", code)
				}
				want := "no " + tt.p.Name + " OAuth client file at " + client + ": save the client JSON there"
				if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "lstat") || strings.Contains(out.String(), "sign-in missing") {
					t.Errorf("status without a client does not say %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestCommandStatusAndLogout(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1")
	env := map[string]string{"MCP_GOOGLE_TOKEN_FILE": files.Token, "MCP_GOOGLE_CLIENT_FILE": files.Client}
	var out bytes.Buffer
	if code, stderr := run(t, p, f, "gmail", env, nil, &out, "status"); code != 0 {
		t.Fatalf("status: exit %d %s\n%s", code, stderr, out.String())
	}
	for _, want := range []string{"state:      ok\n", "account:    ada@example.com\n", "scopes:     openid email gmail.modify gmail.settings.basic\n", "services:   gmail\n", "token file: " + files.Token + "\n", "client:     " + files.Client + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code, _ := run(t, p, f, "calendar", env, nil, &out, "status", "--json"); code != 1 {
		t.Errorf("status for a server the sign-in does not cover: exit %d", code)
	}
	var st Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil || st.State != StateMissing || !strings.Contains(st.Message, "does not grant calendar access: run `calendar auth login`") {
		t.Errorf("status --json %s: %+v, %v", out.String(), st, err)
	}

	out.Reset()
	if code, stderr := run(t, p, f, "gmail", env, nil, &out, "logout"); code != 0 || f.revokes.Load() != 1 {
		t.Fatalf("logout: exit %d, %d revokes, %s", code, f.revokes.Load(), stderr)
	}
	if _, err := os.Stat(files.Token); !os.IsNotExist(err) || !strings.Contains(out.String(), "Every Google server sharing it now answers \"run `gmail auth login`\"") {
		t.Errorf("after logout: %v, %q", err, out.String())
	}
	out.Reset()
	if code, _ := run(t, p, f, "gmail", env, nil, &out, "logout"); code != 0 || !strings.Contains(out.String(), "Not signed in") {
		t.Errorf("second logout: exit %d, %q", code, out.String())
	}

	// A grant Google will not revoke keeps the file unless --keep-grant says otherwise.
	signedInAt(t, files.Token, time.Now().Add(time.Hour))
	broken := *p
	broken.RevokeURL = f.srv.URL + "/nowhere"
	if code, stderr := run(t, &broken, f, "gmail", env, nil, io.Discard, "logout"); code != 1 || !strings.Contains(stderr, "the token file is kept; --keep-grant deletes it anyway") {
		t.Errorf("failed revoke: exit %d, %q", code, stderr)
	}
	if code, _ := run(t, &broken, f, "gmail", env, nil, io.Discard, "logout", "--keep-grant"); code != 0 {
		t.Errorf("--keep-grant: exit %d", code)
	}
	if _, err := os.Stat(files.Token); !os.IsNotExist(err) {
		t.Errorf("--keep-grant left the file: %v", err)
	}

	// Spotify has no revoke endpoint: logout deletes the file and says how to withdraw the grant.
	sp := f.spotify()
	sfiles := signedIn(t, sp, time.Now().Add(time.Hour), "refresh-1")
	senv := map[string]string{"MCP_SPOTIFY_TOKEN_FILE": sfiles.Token, "MCP_SPOTIFY_CLIENT_FILE": sfiles.Client}
	out.Reset()
	if code, _ := run(t, sp, f, "spotify", senv, nil, &out, "status"); code != 0 || !strings.Contains(out.String(), "sign-in ends:") || strings.Contains(out.String(), "services:") {
		t.Errorf("spotify status: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code, _ := run(t, sp, f, "spotify", senv, nil, &out, "logout"); code != 0 || f.revokes.Load() != 1 || !strings.Contains(out.String(), "https://www.spotify.com/account/apps/") {
		t.Errorf("spotify logout: exit %d, %d revokes, %q", code, f.revokes.Load(), out.String())
	}
}

// TestCommandAccounts: a second account signs in with --account into token-LABEL.json beside the
// default token, status lists both (text and a JSON stream) or the one asked, logout of one
// keeps the other, and a bad label is refused before anything happens.
func TestCommandAccounts(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1")
	work := filepath.Join(filepath.Dir(files.Token), "token-work.json")
	env := map[string]string{"MCP_GOOGLE_TOKEN_FILE": files.Token, "MCP_GOOGLE_CLIENT_FILE": files.Client}

	for _, bad := range []string{"Work", "a/b", strings.Repeat("x", 33)} {
		code, stderr := run(t, p, f, "gmail", env, nil, io.Discard, "login", "--account="+bad)
		if code != 2 || !strings.Contains(stderr, "give 1 to 32 of a-z, 0-9, _ and -") {
			t.Errorf("--account %q: exit %d, %q", bad, code, stderr)
		}
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Fatalf("a refused label left a file: %v", err)
	}

	pr, pw := io.Pipe()
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		code, stderr := run(t, p, f, "gmail", env, pr, out, "login", "--account", "work")
		if code != 0 {
			t.Errorf("stderr: %s", stderr)
		}
		done <- code
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	_, _ = io.WriteString(pw, f.consent(t, out.String(), "")+"\n")
	if code := <-done; code != 0 {
		t.Fatalf("login --account work: exit %d", code)
	}
	pw.Close()
	if !strings.Contains(out.String(), "Signed in to Google as ada@example.com (account work); token saved to "+work) {
		t.Errorf("login output:\n%s", out.String())
	}
	if rec, err := ReadRecord(work); err != nil || rec.RefreshToken != "refresh-1" {
		t.Fatalf("work token: %+v, %v", rec, err)
	}
	if rec, err := ReadRecord(files.Token); err != nil || rec.AccessToken != "access-0" {
		t.Fatalf("the default token changed: %+v, %v", rec, err)
	}

	var buf bytes.Buffer
	if code, stderr := run(t, p, f, "gmail", env, nil, &buf, "status"); code != 0 {
		t.Fatalf("status: exit %d %s\n%s", code, stderr, buf.String())
	}
	blocks := strings.Split(buf.String(), "\n\n")
	if len(blocks) != 2 || !strings.HasPrefix(blocks[0], "label:      default\nstate:      ok\n") ||
		!strings.HasPrefix(blocks[1], "label:      work\nstate:      ok\n") || !strings.Contains(blocks[1], "token file: "+work+"\n") {
		t.Errorf("status of two accounts:\n%s", buf.String())
	}

	buf.Reset()
	if code, _ := run(t, p, f, "gmail", env, nil, &buf, "status", "--json"); code != 0 {
		t.Errorf("status --json: exit %d", code)
	}
	dec := json.NewDecoder(&buf)
	var labels []string
	for dec.More() {
		var st struct {
			Label string `json:"label"`
			Status
		}
		if err := dec.Decode(&st); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, st.Label+"="+st.State)
	}
	if !slices.Equal(labels, []string{"default=ok", "work=ok"}) {
		t.Errorf("status --json: %v", labels)
	}

	buf.Reset()
	if code, _ := run(t, p, f, "gmail", env, nil, &buf, "status", "--account", "work"); code != 0 || !strings.HasPrefix(buf.String(), "label:      work\n") || strings.Contains(buf.String(), "default") {
		t.Errorf("status --account work: exit %d\n%s", code, buf.String())
	}
	buf.Reset()
	if code, _ := run(t, p, f, "gmail", env, nil, &buf, "status", "--account", "home"); code != 1 || !strings.Contains(buf.String(), "Google sign-in missing: run `gmail auth login --account home`") {
		t.Errorf("status of an account never signed in: exit %d\n%s", code, buf.String())
	}

	buf.Reset()
	if code, stderr := run(t, p, f, "gmail", env, nil, &buf, "logout", "--account", "work", "--keep-grant"); code != 0 {
		t.Fatalf("logout --account work: exit %d %s", code, stderr)
	}
	if !strings.Contains(buf.String(), "removed "+work) || !strings.Contains(buf.String(), "run `gmail auth login --account work`") {
		t.Errorf("logout output %q", buf.String())
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("logout left %s: %v", work, err)
	}
	if _, err := os.Stat(files.Token); err != nil {
		t.Errorf("logout of work removed the default: %v", err)
	}
	if list, err := Accounts(files.Token); err != nil || !slices.Equal(list, []string{DefaultAccount}) {
		t.Errorf("accounts after logout: %v, %v", list, err)
	}

	// With only another account signed in, status shows it (the servers use it), not the
	// absent default.
	googleRec, _ := ReadRecord(files.Token)
	if err := SaveRecord(work, googleRec); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(files.Token); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if code, _ := run(t, p, f, "gmail", env, nil, &buf, "status"); code != 0 || !strings.HasPrefix(buf.String(), "label:      work\nstate:      ok\n") || strings.Contains(buf.String(), "default") {
		t.Errorf("status with only work: exit %d\n%s", code, buf.String())
	}
	if code, stderr := run(t, p, f, "gmail", env, nil, io.Discard, "status", "extra"); code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("stray argument: exit %d, %q", code, stderr)
	}
}

func TestAccountFiles(t *testing.T) {
	dir := privateDir(t)
	token := filepath.Join(dir, "token.json")
	for _, tc := range []struct{ label, want string }{
		{"", token}, {DefaultAccount, token}, {"work", filepath.Join(dir, "token-work.json")},
	} {
		if got := AccountFile(token, tc.label); got != tc.want {
			t.Errorf("AccountFile(%q) = %s, want %s", tc.label, got, tc.want)
		}
	}
	if list, err := Accounts(token); err != nil || len(list) != 0 {
		t.Errorf("no files: %v, %v", list, err)
	}
	for _, name := range []string{"token-work.json", "token-home.json", "token-Bad.json", "token-work.json.lock", ".token-x.json.123", "token-default.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if list, err := Accounts(token); err != nil || !slices.Equal(list, []string{"home", "work"}) {
		t.Errorf("without the default: %v, %v", list, err)
	}
	if err := os.WriteFile(token, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if list, err := Accounts(token); err != nil || !slices.Equal(list, []string{DefaultAccount, "home", "work"}) {
		t.Errorf("with the default: %v, %v", list, err)
	}
}
