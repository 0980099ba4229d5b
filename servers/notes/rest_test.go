package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

const restToken = "rest-0123456789abcdef0123456789"

// restDo sends one REST request (with the token when it is not empty) and returns the status
// and the body.
func restDo(t *testing.T, method, url, body, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// restPaths are the tool paths of an openapi.json, as tool names, sorted.
func restPaths(t *testing.T, url string) []string {
	t.Helper()
	code, body := restDo(t, http.MethodGet, url, "", restToken)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || code != http.StatusOK || !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("%s: %d %.300s (%v)", url, code, body, err)
	}
	var names []string
	for p := range doc.Paths {
		names = append(names, strings.TrimPrefix(p, "/tools/"))
	}
	slices.Sort(names)
	return names
}

// TestREST: POST /tools/create_note writes the note with a token and answers 401 without one,
// writing nothing; openapi.json lists exactly the offered tools, without the writes under
// --read-only or at /readonly.
func TestREST(t *testing.T) {
	state := t.TempDir()
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("phone:"+restToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := mcptest.Start(t, spec(), "--state-dir", state, "--scan-interval", "0", "--auth-tokens-file", tokens)
	waitIndexed(t, h)
	dir := filepath.Join(state, "notes")

	code, body := restDo(t, http.MethodPost, h.URL+"/tools/create_note", `{"path":"kept.md","content":"from a phone shortcut"}`, "")
	var refused struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(body, &refused); err != nil || code != http.StatusUnauthorized || refused.Error.Code != "unauthorized" {
		t.Errorf("create_note without a token: %d %s (%v), want 401 unauthorized", code, body, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept.md")); err == nil {
		t.Errorf("create_note without a token wrote the note")
	}

	code, body = restDo(t, http.MethodPost, h.URL+"/tools/create_note", `{"path":"shortcuts/milk.md","content":"buy milk","tags":["errand"]}`, restToken)
	var ok struct {
		Result struct {
			Path    string
			Changed bool
		}
		Text string
	}
	if err := json.Unmarshal(body, &ok); err != nil || code != http.StatusOK || ok.Result.Path != "shortcuts/milk.md" || !ok.Result.Changed || ok.Text == "" {
		t.Fatalf("create_note with a token: %d %s (%v)", code, body, err)
	}
	written, err := os.ReadFile(filepath.Join(dir, "shortcuts", "milk.md"))
	if err != nil || !strings.Contains(string(written), "buy milk") || !strings.Contains(string(written), "errand") {
		t.Errorf("the note on disk: %q (%v)", written, err)
	}
	code, body = restDo(t, http.MethodPost, h.URL+"/tools/create_note", `{"path":"shortcuts/milk.md","content":"again"}`, restToken)
	if err := json.Unmarshal(body, &refused); err != nil || code/100 != 4 || refused.Error.Message == "" {
		t.Errorf("create_note over an existing note: %d %s (%v), want a 4xx that says why", code, body, err)
	}

	if got, want := restPaths(t, h.URL+"/openapi.json"), h.Server.ToolNames(); !slices.Equal(got, want) {
		t.Errorf("openapi.json lists %v, want the offered tools %v", got, want)
	}
	if got := restPaths(t, h.URL+"/readonly/openapi.json"); slices.Contains(got, "create_note") || len(got) == 0 {
		t.Errorf("/readonly/openapi.json lists %v: want the read tools only", got)
	}
	ro := mcptest.Start(t, spec(), "--state-dir", t.TempDir(), "--scan-interval", "0", "--auth-tokens-file", tokens, "--read-only")
	if got, want := restPaths(t, ro.URL+"/openapi.json"), ro.Server.ToolNames(); !slices.Equal(got, want) || slices.Contains(got, "create_note") {
		t.Errorf("--read-only: openapi.json lists %v, want %v without create_note", got, want)
	}
}
