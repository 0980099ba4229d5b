package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchSurvivesFolderChurn moves watched folders out of the notes folder and deletes them
// while new folders appear (each one watched as it comes), then checks that an outside edit
// is still found by search and that the server closes promptly. fsnotify sends an error for
// a folder moved and deleted before it read the move while holding the lock Add takes; a
// watch loop that both added watches and received those errors stopped there for good, and so
// did the server's close (a notes test run in CI hung ten minutes on it). The kernel's timing
// decides whether a run meets that moment, so this test catches it some of the time; the
// design (pump receives, and never calls into fsnotify) is what prevents it.
func TestWatchSurvivesFolderChurn(t *testing.T) {
	t.Parallel()
	e := start(t, "--scan-interval", "1h") // outside edits are found by the watch alone
	away := t.TempDir()
	mkdir := func(dir string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		// Folders watched a moment from now, to be moved out and deleted.
		var churn []string
		for j := range 5 {
			dir := filepath.Join(e.dir, fmt.Sprintf("churn-%d-%d", i, j))
			mkdir(dir)
			churn = append(churn, dir)
		}
		// Notes for the watch loop to index: while it does, fsnotify waits to hand it more,
		// and the kernel queues what follows.
		for j := range 50 {
			if err := os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("bulk-%d-%d.md", i, j)), []byte("bulk\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(settle + 10*time.Millisecond)
		// A folder that stays (the loop adds a watch for it) queued just before the moves.
		mkdir(filepath.Join(e.dir, fmt.Sprintf("keep-%d", i), "sub"))
		for j, dir := range churn {
			moved := filepath.Join(away, fmt.Sprintf("%d-%d", i, j))
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(moved); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(e.dir, "after"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "after", "late.md"), []byte("zebrafinch sighted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	found := false
	for wait := time.Now().Add(time.Minute); !found && time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
		found = len(call[listOutput](e, "list_notes", map[string]any{"query": "zebrafinch"}).Notes) == 1
	}
	if !found {
		t.Errorf("an outside edit after the churn was never indexed: the folder watch stopped (index: %s)", e.h.Server.Health(t.Context()).Checks["index"].Detail)
	}
	closed := make(chan struct{})
	go func() {
		e.h.Server.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not close within 30 s: the folder watch is stuck")
	}
}
