package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSecrets(t *testing.T) {
	const good = `{"bank": {"value": "p4ss word", "origins": ["https://Bank.Example:443/", "http://127.0.0.1:8080"]}}`
	for _, tt := range []struct {
		name    string
		content string
		mode    os.FileMode
		dir     bool
		want    string // part of the error; "" for none
	}{
		{"0600", good, 0o600, false, ""},
		{"0400, as systemd gives a credential", good, 0o400, false, ""},
		{"group may read", good, 0o640, false, "is open to"},
		{"anyone may read", good, 0o644, false, "is open to"},
		{"a folder", "", 0o700, true, "is not a regular file"},
		{"not JSON, quoting none of it", `{"bank": {"value": "p4ss word" "origins": []}}`, 0o600, false, "not valid JSON at byte 32"},
		{"an unknown field", `{"bank": {"value": "p4ss word", "origin": ["https://a.example"]}}`, 0o600, false, `unknown field "origin"`},
		{"a short value", `{"bank": {"value": "p4s", "origins": ["https://a.example"]}}`, 0o600, false, "a value of at least 4 characters"},
		{"no origins", `{"bank": {"value": "p4ss word"}}`, 0o600, false, "list the origins"},
		{"an origin with a path", `{"bank": {"value": "p4ss word", "origins": ["https://a.example/login"]}}`, 0o600, false, "give scheme and host only"},
		{"a bad name", `{"bank/x": {"value": "p4ss word", "origins": ["https://a.example"]}}`, 0o600, false, `name "bank/x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secrets.json")
			if tt.dir {
				if err := os.Mkdir(path, tt.mode); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			s, err := loadSecrets(path)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("got %v, want an error with %q", err, tt.want)
				}
				if strings.Contains(err.Error(), "p4ss") {
					t.Errorf("the error quotes the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sec, err := s.get("bank")
			if err != nil {
				t.Fatal(err)
			}
			for origin, want := range map[string]bool{"https://bank.example": true, "https://bank.example:443": true, "http://127.0.0.1:8080": true,
				"http://bank.example": false, "https://bank.example:8443": false, "https://evil.bank.example": false, "http://127.0.0.1": false} {
				if got := sec.allows(origin); got != want {
					t.Errorf("allows(%s) = %v", origin, got)
				}
			}
			if _, err := s.get("nope"); err == nil || !strings.Contains(err.Error(), "the secrets are: bank") {
				t.Errorf("an unknown name should list the names: %v", err)
			}
			for in, want := range map[string]string{
				"a p4ss word b":                "a [secret bank] b",
				"password=p4ss+word&x=1":       "password=[secret bank]&x=1",
				`{"password":"p4ss word"}`:     `{"password":"[secret bank]"}`,
				"cDRzcyB3b3Jk and p4ss%20word": "[secret bank] and [secret bank]",
			} {
				if got := s.redact(in); got != want {
					t.Errorf("redact(%q) = %q, want %q", in, got, want)
				}
			}
		})
	}
}

// TestLoadSecretsMissing: a secrets file that is not there is named with what to write in it,
// never a bare lstat error.
func TestLoadSecretsMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "secrets.json")
	_, err := loadSecrets(path)
	if err == nil || !strings.Contains(err.Error(), "secrets file "+path+" does not exist: create it") || !strings.Contains(err.Error(), "or leave out --secrets-file") || strings.Contains(err.Error(), "lstat") {
		t.Fatalf("got %v, want the missing file named with the fix", err)
	}
}

func TestSecretsPath(t *testing.T) {
	dir := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := secretsPath("", env(map[string]string{"CREDENTIALS_DIRECTORY": dir})); got != "" {
		t.Errorf("no credential: got %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, secretsCredential), []byte("{}"), 0o400); err != nil {
		t.Fatal(err)
	}
	if got := secretsPath("", env(map[string]string{"CREDENTIALS_DIRECTORY": dir})); got != filepath.Join(dir, secretsCredential) {
		t.Errorf("the credential: got %q", got)
	}
	if got := secretsPath("/etc/x.json", env(map[string]string{"CREDENTIALS_DIRECTORY": dir})); got != "/etc/x.json" {
		t.Errorf("the flag wins: got %q", got)
	}
}
