package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/swaptest"
)

// TestFoldersAgainstSwaps uploads a file through a directory of the upload folder, and saves
// PDFs and downloads into the session's downloads folder, while that directory, the session's
// folder or the download's name is swapped for a symlink to a sentinel outside: nothing outside
// may be handed to Chromium to upload, or written by the server.
func TestFoldersAgainstSwaps(t *testing.T) {
	site := newSite(t)
	h, cs := startServer(t)
	state := h.Server.Config().StateDir
	s := swaptest.NewSentinel(t, "secret", "report.csv")
	s2 := sess{t: t, cs: cs, name: "swap", site: site, state: state}
	uploads := filepath.Join(state, "uploads")
	if err := os.MkdirAll(filepath.Join(uploads, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(uploads, "d", "secret"), []byte("inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	outsideSize := fmt.Sprintf("(%d bytes)", len(s.Secret))

	snap := s2.open("upload.html")
	resume := ref(t, snap, `button "Resume"`)
	sw := swaptest.Start(t, swaptest.SymlinkSwap(t, filepath.Join(uploads, "d"), s.Dir))
	uploaded := 0
	swaptest.Loop(time.Second, func(int) {
		res := mcptest.Call(t, cs, "browser_upload_file", s2.args(map[string]any{"ref": resume, "files": []string{"d/secret"}}))
		text := mcptest.Text(res)
		s.CheckText(t, "browser_upload_file", text)
		if strings.Contains(text, outsideSize) {
			t.Errorf("the page was given the file outside: %s", text)
		}
		if !res.IsError {
			uploaded++
		}
	})
	sw.Stop(t)
	s.CheckTree(t, filepath.Join(state, "upload-staging"))
	if uploaded == 0 {
		t.Error("no upload went through while the directory was swapped back and forth")
	}

	s2.open("shots.html") // makes the session's downloads folder
	dirs, _ := filepath.Glob(filepath.Join(state, "downloads", "*swap"))
	if len(dirs) != 1 {
		t.Fatalf("the session's downloads folder: %q", dirs)
	}
	sw = swaptest.Start(t, swaptest.SymlinkSwap(t, dirs[0], s.Dir))
	saved := 0
	swaptest.Loop(time.Second, func(int) {
		res := mcptest.Call(t, cs, "browser_screenshot", s2.args(map[string]any{"format": "pdf"}))
		switch text := mcptest.Text(res); {
		case !res.IsError:
			saved++
		case !strings.Contains(text, "nothing was saved"):
			t.Errorf("a PDF while the folder was swapped: %s", text)
		}
	})
	sw.Stop(t)
	if saved == 0 {
		t.Error("no PDF was saved while the folder was swapped back and forth")
	}

	if err := os.WriteFile(filepath.Join(dirs[0], "report.csv"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	sw = swaptest.Start(t, swaptest.SymlinkSwap(t, filepath.Join(dirs[0], "report.csv"), filepath.Join(s.Dir, "report.csv")))
	snap = s2.open("popup")
	link := ref(t, snap, `link "Download report"`)
	swaptest.Loop(time.Second, func(int) {
		out := s2.call("browser_click", map[string]any{"ref": link})
		if !strings.Contains(out, "downloaded report") {
			t.Errorf("the click should report the download:\n%s", out)
		}
	})
	sw.Stop(t)
	s.Check(t)
}
