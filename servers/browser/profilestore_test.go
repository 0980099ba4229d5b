package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
)

func TestProfileNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"work", true},
		{"Work_2-b", true},
		{"0", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"..", false},
		{"../work", false},
		{"a/b", false},
		{`a\b`, false},
		{".hidden", false},
		{"-flag", false},
		{"x y", false},
		{"café", false},
		{"work.json", false},
	}
	for _, tt := range tests {
		if err := checkProfileName(tt.name); (err == nil) != tt.ok {
			t.Errorf("checkProfileName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestSessionNames(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"default", true},
		{"a.b_c-d", true},
		{"..", true}, // a handle, never a path
		{strings.Repeat("s", 64), true},
		{strings.Repeat("s", 65), false},
		{"a/b", false},
		{"a b", false},
		{"ünï", false},
	}
	for _, tt := range tests {
		if got := isName(tt.name, 64, "_.-"); got != tt.ok {
			t.Errorf("isName(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

func TestProfileStore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "profiles")
	p := profileStore{root: root}
	// Labels that look like paths stay inside the root, one folder each.
	labels := []string{"alice", "../bob", "a/b", "..", "."}
	seen := map[string]bool{}
	for _, l := range labels {
		dir := p.dir(l)
		if filepath.Dir(dir) != root {
			t.Errorf("label %q gets folder %s, outside %s", l, dir, root)
		}
		if seen[dir] {
			t.Errorf("label %q shares folder %s", l, dir)
		}
		seen[dir] = true
	}

	st, ok, err := p.load("alice", "work")
	if err != nil || ok || len(st.Cookies) != 0 {
		t.Fatalf("a profile never saved: %v %v %v", st, ok, err)
	}
	// A folder that exists with a wider mode is narrowed.
	if err := os.MkdirAll(p.dir("alice"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := &storageState{
		Cookies: []stateCookie{{Name: "sid", Value: "x", Domain: "example.com", Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"}},
		Origins: []stateOrigin{{Origin: "https://example.com", LocalStorage: []nameValue{{Name: "theme", Value: "dark"}}}},
	}
	if err := p.save("alice", "work", want); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{root: 0o700, p.dir("alice"): 0o700, p.path("alice", "work"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
	entries, _ := os.ReadDir(p.dir("alice"))
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only work.json (no temporary file left)", len(entries))
	}
	got, ok, err := p.load("alice", "work")
	if err != nil || !ok || got.Cookies[0] != want.Cookies[0] || got.Origins[0].LocalStorage[0] != want.Origins[0].LocalStorage[0] {
		t.Errorf("load after save: %+v %v %v", got, ok, err)
	}
	if _, ok, _ := p.load("bob", "work"); ok {
		t.Error("another label sees alice's profile")
	}

	// The list skips files that are not profiles and counts what each holds.
	for _, name := range []string{"notes.txt", ".tmp-123", "bad name.json"} {
		if err := os.WriteFile(filepath.Join(p.dir("alice"), name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list, err := p.list("alice")
	if err != nil || len(list) != 1 || list[0].name != "work" || list[0].cookies != 1 || list[0].origins != 1 {
		t.Errorf("list: %+v %v", list, err)
	}
	if list, err := p.list("nobody"); err != nil || len(list) != 0 {
		t.Errorf("a label with no folder: %+v %v", list, err)
	}

	if err := os.WriteFile(p.path("alice", "broken"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.load("alice", "broken"); err == nil || !strings.Contains(err.Error(), "clear it") {
		t.Errorf("a damaged profile: %v", err)
	}
	if ok, err := p.remove("alice", "work"); !ok || err != nil {
		t.Errorf("remove: %v %v", ok, err)
	}
	if ok, err := p.remove("alice", "work"); ok || err != nil {
		t.Errorf("remove again: %v %v", ok, err)
	}
}

func TestStorageStateCheck(t *testing.T) {
	tests := []struct {
		name string
		st   storageState
		want string // "" for valid
	}{
		{"empty", storageState{}, ""},
		{"a cookie", storageState{Cookies: []stateCookie{{Name: "a", Value: "1", Domain: ".example.com", SameSite: "None", Secure: true}}}, ""},
		{"no domain", storageState{Cookies: []stateCookie{{Name: "a", Value: "1"}}}, "needs a name or value, and a domain"},
		{"bad sameSite", storageState{Cookies: []stateCookie{{Name: "a", Domain: "x.org", SameSite: "strict"}}}, "not Strict, Lax or None"},
		{"origin without a scheme", storageState{Origins: []stateOrigin{{Origin: "example.com"}}}, "give scheme and host"},
		{"file origin", storageState{Origins: []stateOrigin{{Origin: "file:///etc"}}}, "give scheme and host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.st.check()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCookieParam(t *testing.T) {
	tests := []struct {
		name string
		in   stateCookie
		want network.CookieParam
	}{
		{"host-only, set through its URL", stateCookie{Name: "sid", Value: "v", Domain: "127.0.0.1", Path: "/app", Expires: -1},
			network.CookieParam{Name: "sid", Value: "v", URL: "http://127.0.0.1/app", Path: "/app"}},
		{"secure host-only", stateCookie{Name: "s", Domain: "example.com", Secure: true, Expires: 1900000000},
			network.CookieParam{Name: "s", URL: "https://example.com/", Path: "/", Secure: true, Expires: 1900000000}},
		{"a domain and its subdomains", stateCookie{Name: "d", Domain: ".example.com", Path: "/", SameSite: "Strict", HTTPOnly: true},
			network.CookieParam{Name: "d", Domain: ".example.com", Path: "/", SameSite: network.CookieSameSiteStrict, HTTPOnly: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := *cookieParam(tt.in); got != tt.want {
				t.Errorf("cookieParam(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestBodies(t *testing.T) {
	tests := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"JSON", "application/json", []byte(`{"a":1}`), "Body (7 bytes):\n{\"a\":1}\n"},
		{"text with a charset", "text/html; charset=utf-8", []byte("<p>hi</p>"), "Body (9 bytes):\n<p>hi</p>\n"},
		{"an image", "image/png", []byte("\x89PNG\r\n"), "Body: binary, 6 bytes, image/png\n"},
		{"untyped text", "", []byte("plain words"), "Body (11 bytes):\nplain words\n"},
		{"untyped bytes with a NUL", "application/octet-stream", []byte("ab\x00cd"), "Body: binary, 5 bytes, application/octet-stream\n"},
		{"untyped invalid UTF-8", "", []byte{0xff, 0xfe, 0x41}, "Body: binary, 3 bytes, unknown type\n"},
		{"empty", "text/plain", nil, "Body: empty\n"},
		{"long text cut on a rune", "text/plain", []byte(strings.Repeat("a", maxBodyBytes-1) + "é" + "zz"), "Body (first 7999 of 8003 bytes):\n" + strings.Repeat("a", maxBodyBytes-1) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeBody(&b, "Body", tt.body, tt.contentType)
			if b.String() != tt.want {
				t.Errorf("writeBody = %q, want %q", b.String(), tt.want)
			}
		})
	}
}
