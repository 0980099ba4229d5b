package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/swaptest"
)

// folder makes a directory holding files (slash-separated name: content).
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAttachLocalFiles(t *testing.T) {
	t.Parallel()
	s := swaptest.NewSentinel(t, "secret")
	dir := folder(t, map[string]string{"plan.txt": "step 1", "d/notes.txt": "notes"})
	for name, target := range map[string]string{"in-link": "d/notes.txt", "out-link": filepath.Join(s.Dir, "secret"), "rel-out": "../x"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	f, cs, _ := start(t, "--attachments-dir", dir)
	tests := []struct {
		path, want string // want is the attached content, or the error
		ok         bool
	}{
		{"plan.txt", "step 1", true},
		{filepath.Join(dir, "d", "notes.txt"), "notes", true},
		{"in-link", "notes", true},
		{"out-link", "outside the attachments folder", false},
		{"rel-out", "outside the attachments folder", false},
		{"../plan.txt", "outside the attachments folder", false},
		{filepath.Join(s.Dir, "secret"), "outside the attachments folder", false},
		{"d", "not a regular file", false},
		{"missing.txt", "missing.txt", false},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, "send_message", map[string]any{"to": []string{"bob@example.com"}, "text": "hi", "attachments": []map[string]any{{"path": tt.path}}})
		s.CheckText(t, "send_message", mcptest.Text(res))
		if res.IsError == tt.ok || (!tt.ok && !strings.Contains(mcptest.Text(res), tt.want)) {
			t.Errorf("%s: %s; want ok %v, %q", tt.path, mcptest.Text(res), tt.ok, tt.want)
			continue
		}
		if tt.ok {
			_, parts := readRaw(t, f.Sent[len(f.Sent)-1])
			if parts[filepath.Base(tt.path)] != tt.want {
				t.Errorf("%s: attached %q", tt.path, parts)
			}
		}
	}
}

// TestFoldersAgainstSwaps attaches a file through a directory of the attachments folder, and
// saves an attachment into the downloads folder, while the directory, the saved file's name or
// the downloads folder itself is swapped for a symlink to a sentinel outside: nothing outside
// may be read (sent) or written.
func TestFoldersAgainstSwaps(t *testing.T) {
	t.Parallel()
	s := swaptest.NewSentinel(t, "secret", "nested-2-report.pdf")
	attach := folder(t, map[string]string{"d/secret": "inside"})
	downloads := folder(t, map[string]string{"nested-2-report.pdf": "old"})
	f, cs, _ := start(t, "--attachments-dir", attach, "--downloads-dir", downloads, "--inline-attachment-bytes", "0")

	sw := swaptest.Start(t, swaptest.SymlinkSwap(t, filepath.Join(attach, "d"), s.Dir))
	swaptest.Loop(time.Second, func(int) {
		res := mcptest.Call(t, cs, "send_message", map[string]any{"to": []string{"bob@example.com"}, "text": "hi", "attachments": []map[string]any{{"path": "d/secret"}}})
		s.CheckText(t, "send_message", mcptest.Text(res))
	})
	sw.Stop(t)
	for _, m := range f.Sent {
		raw, _ := base64.URLEncoding.DecodeString(m.Raw)
		s.CheckText(t, "the sent message", string(raw))
		s.CheckText(t, "the sent message", m.Raw)
	}

	for _, swap := range []func() error{
		swaptest.SymlinkSwap(t, filepath.Join(downloads, "nested-2-report.pdf"), filepath.Join(s.Dir, "nested-2-report.pdf")),
		swaptest.SymlinkSwap(t, downloads, s.Dir),
	} {
		sw := swaptest.Start(t, swap)
		swaptest.Loop(time.Second, func(int) {
			res := mcptest.Call(t, cs, "get_attachment", map[string]any{"message_id": "nested", "attachment_id": "att-pdf"})
			if res.IsError {
				t.Errorf("get_attachment: %s", mcptest.Text(res))
			}
		})
		sw.Stop(t)
	}
	s.Check(t)
	s.CheckTree(t, attach)
}
