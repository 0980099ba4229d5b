package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The owner's secrets in TestSecretsNeverShown: values with characters that every encoding
// spells differently.
const (
	bankPassword = "Tr0ub4dor&3 <s3cret>+"
	apiToken     = "tok_9f8e7d6c5b4a"
)

// secretSite serves a sign-in form, a page that embeds a form of another origin, and a
// signed-in page whose scripts spread the password around (a console message, a base64 copy,
// a hidden element, a JSON request).
func secretSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Bank sign-in</title><main><h1>Bank</h1><form action="/session" method="post">
<label>User <input name="user"></label><label>Password <input name="password" type="password"></label>
<label>API key <input name="key"></label><div id="memo-l">Memo</div><div id="memo" contenteditable="true" role="textbox" aria-labelledby="memo-l"></div>
<button>Sign in</button></form></main>`)
	})
	mux.HandleFunc("GET /framed", func(w http.ResponseWriter, r *http.Request) {
		other := r.URL.Query().Get("src")
		fmt.Fprintf(w, `<!doctype html><title>Framed</title><h1>Framed</h1><iframe title="Sign in" src="%s" width="600" height="300"></iframe>`, other)
	})
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		pw := r.Form.Get("password")
		if pw != bankPassword || r.Form.Get("key") != apiToken {
			http.Error(w, "wrong password", http.StatusUnauthorized)
			return
		}
		js, _ := json.Marshal(pw)
		fmt.Fprintf(w, `<!doctype html><title>Signed in</title><h1>Signed in as %s</h1><p id="hidden" hidden></p>
<script>
const pw = %s;
document.getElementById('hidden').textContent = pw;
console.log('the password is ' + pw);
console.log('base64 ' + btoa(pw));
fetch('/keep', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({password: pw})});
</script>`, r.Form.Get("user"), js)
	})
	mux.HandleFunc("POST /keep", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b) // echoes the password back
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestSecretsNeverShown runs a session that types the owner's secrets by name — a password
// field, a plain text field, refusals on other origins and in another origin's iframe — and
// greps every output of the run for each value in every spelling: tool answers, errors,
// snapshots, page text, console and network logs, the server's log and its metrics.
func TestSecretsNeverShown(t *testing.T) {
	site := secretSite(t)
	bank := site.URL                                                // http://127.0.0.1:PORT
	other := strings.Replace(site.URL, "127.0.0.1", "localhost", 1) // another origin, same server
	dir := t.TempDir()
	file := filepath.Join(dir, "secrets.json")
	write := func(mode os.FileMode) {
		data, _ := json.Marshal(map[string]any{
			"bank_password": map[string]any{"value": bankPassword, "origins": []string{bank}},
			"api_token":     map[string]any{"value": apiToken, "origins": []string{bank + "/"}},
		})
		if err := os.WriteFile(file, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(0o644)
	if err := (&options{maxTabs: 1, maxMemoryMB: 256, idleTimeout: 60e9, secretsFile: file}).finish(dir, func(string) string { return "" }); err == nil ||
		!strings.Contains(err.Error(), "is open to") {
		t.Fatalf("a secrets file others may read should be refused: %v", err)
	}
	write(0o600)
	// localhost, the other origin, may resolve to ::1 first (a Debian /etc/hosts lists both).
	h, cs := startServerArgs(t, "--allow-private-hosts", "127.0.0.1/32,localhost", "--secrets-file", file)

	var outputs []string
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res := mcptest.Call(t, cs, name, args)
		text := mcptest.Text(res)
		outputs = append(outputs, text)
		return text, res.IsError
	}
	mustCall := func(name string, args map[string]any) string {
		t.Helper()
		text, isErr := call(name, args)
		if isErr {
			t.Fatalf("%s %v: %s", name, args, text)
		}
		return text
	}
	mustFail := func(name string, args map[string]any, want string) {
		t.Helper()
		text, isErr := call(name, args)
		if !isErr || !strings.Contains(text, want) {
			t.Errorf("%s %v should fail with %q: %s", name, args, want, text)
		}
	}

	// Another origin, and another origin's iframe inside the bank's page: nothing is typed.
	snap := mustCall("browser_navigate", map[string]any{"url": other + "/login"})
	mustFail("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Password"`), "secret": "bank_password"},
		"the secret bank_password may be typed only into pages of "+bank+"; this field is in a page of "+other+", so nothing was typed")
	snap = mustCall("browser_navigate", map[string]any{"url": bank + "/framed?src=" + url.QueryEscape(other+"/login")})
	mustFail("browser_fill_form", map[string]any{"fields": []map[string]any{{"ref": ref(t, snap, `textbox "Password"`), "secret": "bank_password"}}},
		"this field is in a page of "+other)
	mustFail("browser_type", map[string]any{"ref": ref(t, snap, `textbox "User"`), "secret": "no_such"}, `no secret "no_such"; the secrets are: api_token, bank_password`)

	// The bank's own page: the password field shows masked, whatever typed it.
	snap = mustCall("browser_navigate", map[string]any{"url": bank + "/login"})
	mustCall("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Password"`), "text": "hunter2"})
	if got := mustCall("browser_snapshot", map[string]any{}); strings.Contains(got, "hunter2") || !strings.Contains(got, `textbox "Password" [e2]: ••••••••`) {
		t.Errorf("a password field should show masked:\n%s", got)
	}
	mustCall("browser_fill_form", map[string]any{"fields": []map[string]any{
		{"ref": ref(t, snap, `textbox "User"`), "value": "alice"},
		{"ref": ref(t, snap, `textbox "Password"`), "secret": "bank_password"},
		{"ref": ref(t, snap, `textbox "API key"`), "secret": "api_token"},
	}})
	mustCall("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Memo"`), "secret": "api_token"})
	got := mustCall("browser_snapshot", map[string]any{})
	if !strings.Contains(got, `textbox "API key" [e3]: [secret api_token]`) || !strings.Contains(got, `textbox "Password" [e2]: ••••••••`) {
		t.Errorf("the snapshot should show the secrets by name or masked:\n%s", got)
	}
	mustFail("browser_evaluate", map[string]any{"function": "() => document.querySelector('[name=password]').value"}, "a secret was typed into this page")
	mustFail("browser_screenshot", map[string]any{}, "a secret was typed into this page")
	mustFail("browser_type", map[string]any{"ref": ref(t, snap, `textbox "API key"`), "secret": "api_token", "text": "x"}, "give text or secret, not both")

	// Signed in: the page spreads the password; none of it reaches the model.
	got = mustCall("browser_click", map[string]any{"ref": ref(t, snap, `button "Sign in"`)})
	if !strings.Contains(got, "Signed in as alice") {
		t.Fatalf("signing in with the secrets should work:\n%s", got)
	}
	mustCall("browser_wait_for", map[string]any{"seconds": 0.5})
	mustCall("browser_get_text", map[string]any{})
	ev := mustCall("browser_evaluate", map[string]any{"function": "() => [document.getElementById('hidden').textContent, btoa(document.getElementById('hidden').textContent)]"})
	if !strings.Contains(ev, "[secret bank_password]") {
		t.Errorf("what a script returns should be cleaned: %s", ev)
	}
	mustFail("browser_evaluate", map[string]any{"function": "() => { throw new Error('oops ' + document.getElementById('hidden').textContent) }"}, "[secret bank_password]")
	console := mustCall("browser_logs", map[string]any{"all": true})
	if !strings.Contains(console, "the password is [secret bank_password]") || !strings.Contains(console, "base64 [secret bank_password]") {
		t.Errorf("console messages should be cleaned:\n%s", console)
	}
	network := mustCall("browser_logs", map[string]any{"kind": "network"})
	for _, l := range strings.Split(network, "\n") {
		if n := 0; strings.Contains(l, "POST") {
			if _, err := fmt.Sscanf(strings.TrimSpace(l), "#%d", &n); err == nil {
				detail := mustCall("browser_logs", map[string]any{"kind": "network", "request": n})
				if strings.Contains(detail, "/session") && !strings.Contains(detail, "Request body: withheld") {
					t.Errorf("the sign-in request's body should be withheld:\n%s", detail)
				}
			}
		}
	}
	mustCall("browser_navigate", map[string]any{"url": "back"})

	// Every output, the server's log and its metrics hold no spelling of either value.
	resp, err := http.Get(h.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	all := strings.Join(append(outputs, h.Logs(), string(metrics)), "\n")
	for _, v := range []string{bankPassword, apiToken} {
		for _, spelling := range []string{v, url.QueryEscape(v), formEscape(v), base64.StdEncoding.EncodeToString([]byte(v)), "s3cret", "9f8e7d6c"} {
			if strings.Contains(all, spelling) {
				i := strings.Index(all, spelling)
				t.Errorf("the value shows as %q: …%s…", spelling, all[max(0, i-200):min(len(all), i+100)])
			}
		}
	}
	if !strings.Contains(h.Logs(), `"secret":"bank_password"`) {
		t.Errorf("a refused origin should be logged by the secret's name:\n%s", h.Logs())
	}
	_ = mcp.Content(nil)
}
