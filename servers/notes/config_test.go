package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
)

// TestNotesDirMustExist: a --notes-dir that does not exist is refused (exit 2, naming the
// folder and --create-notes-dir) instead of silently becoming a new, empty vault; with
// --create-notes-dir it is made, and the default folder under the state dir is always made.
func TestNotesDirMustExist(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(base, "vault")
	if err := os.Mkdir(existing, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
		made    string // a folder that must exist afterwards
	}{
		{"mistyped", []string{"--notes-dir", filepath.Join(base, "vaulT")}, 2, "does not exist: check the path, or give --create-notes-dir", ""},
		{"a file", []string{"--notes-dir", file}, 2, "is not a folder", ""},
		{"existing", []string{"--notes-dir", existing}, 0, "", existing},
		{"asked to create", []string{"--notes-dir", filepath.Join(base, "new"), "--create-notes-dir"}, 0, "", filepath.Join(base, "new")},
		{"the default", nil, 0, "", "notes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			var stderr bytes.Buffer
			args := append(append([]string{}, tt.args...), "--list-tools", "--state-dir", state)
			code := kit.Run(t.Context(), spec(), args, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Fatalf("exit %d, want %d with %q; stderr:\n%s", code, tt.code, tt.wantErr, stderr.String())
			}
			if tt.made != "" {
				dir := tt.made
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(state, dir)
				}
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					t.Errorf("%s not made: %v", dir, err)
				}
			}
		})
	}
}
