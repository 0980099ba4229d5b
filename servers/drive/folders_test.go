package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/swaptest"
)

// TestFoldersAgainstSwaps uploads a file through a directory of the uploads folder, and
// downloads into the downloads folder, while the directory, the downloaded file's name or the
// downloads folder itself is swapped for a symlink to a sentinel outside: nothing outside may
// be read (uploaded) or written.
func TestFoldersAgainstSwaps(t *testing.T) {
	t.Parallel()
	s := swaptest.NewSentinel(t, "secret", "doc1-Project plan.pdf")
	uploads, downloads := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(uploads, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(uploads, "d", "secret"), filepath.Join(downloads, "doc1-Project plan.pdf")} {
		if err := os.WriteFile(p, []byte("inside"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, cs := start(t, "--uploads-dir", uploads, "--downloads-dir", downloads)

	sw := swaptest.Start(t, swaptest.SymlinkSwap(t, filepath.Join(uploads, "d"), s.Dir))
	uploaded := 0
	swaptest.Loop(time.Second, func(int) {
		res := mcptest.Call(t, cs, "upload_file", map[string]any{"path": "d/secret"})
		s.CheckText(t, "upload_file", mcptest.Text(res))
		if !res.IsError {
			uploaded++
		}
	})
	sw.Stop(t)
	for _, c := range f.Calls("POST", "/upload/drive/v3/files") {
		s.CheckText(t, "the upload", string(c.Media))
	}
	if uploaded == 0 {
		t.Error("no upload went through while the directory was swapped back and forth")
	}

	for _, swap := range []func() error{
		swaptest.SymlinkSwap(t, filepath.Join(downloads, "doc1-Project plan.pdf"), filepath.Join(s.Dir, "doc1-Project plan.pdf")),
		swaptest.SymlinkSwap(t, downloads, s.Dir),
	} {
		sw := swaptest.Start(t, swap)
		swaptest.Loop(time.Second, func(int) {
			if res := mcptest.Call(t, cs, "download_file", map[string]any{"file_id": "doc1"}); res.IsError {
				t.Errorf("download_file: %s", mcptest.Text(res))
			}
		})
		sw.Stop(t)
	}
	s.Check(t)
}
