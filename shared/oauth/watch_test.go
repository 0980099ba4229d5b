package oauth

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchedSourceLooksOncePerSignIn: with the token folder watched, a hundred token requests
// look at the file once; a new sign-in written by another process (a rename into the folder, as
// `auth login` does) is picked up without a restart, and the calls after it look no more.
func TestWatchedSourceLooksOncePerSignIn(t *testing.T) {
	f := newFake(t)
	g := f.google()
	files := signedIn(t, g, time.Now().Add(time.Hour), "refresh-1")
	w, err := WatchDir(filepath.Dir(files.Token))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	s := NewSource(g, SourceOptions{Files: files, Fix: "gmail auth login", Service: "gmail", HTTPClient: f.srv.Client(), Watch: w})

	for range 100 {
		if tok, err := s.Token(); err != nil || tok.AccessToken != "access-0" {
			t.Fatalf("Token() = %v, %v; want access-0", tok, err)
		}
	}
	if s.looks != 1 {
		t.Fatalf("100 calls looked at the token file %d times; want 1", s.looks)
	}

	// Another process replaces the sign-in: the new file is written beside it, then renamed.
	next := filepath.Join(filepath.Dir(files.Token), "next.json")
	if err := SaveRecord(next, &Record{Account: "ada@example.com", Scopes: []string{googleScope + "gmail.modify", googleScope + "gmail.settings.basic"},
		AccessToken: "access-new", TokenType: "Bearer", RefreshToken: "refresh-2", Expiry: time.Now().Add(time.Hour), SignedIn: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mv", next, files.Token).CombinedOutput(); err != nil {
		t.Fatalf("mv: %v: %s", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		tok, err := s.Token()
		if err == nil && tok.AccessToken == "access-new" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other process's sign-in was not picked up: Token() = %v, %v", tok, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	looks := s.looks
	for range 100 {
		if _, err := s.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if s.looks != looks {
		t.Fatalf("100 calls after the new sign-in looked %d more times; want 0", s.looks-looks)
	}
}

// TestUnwatchedSourceLooksEveryCall: without a watch (nil, or a folder that cannot be watched)
// the source looks at the file on each call, as before, so a change is never missed.
func TestUnwatchedSourceLooksEveryCall(t *testing.T) {
	f := newFake(t)
	g := f.google()
	files := signedIn(t, g, time.Now().Add(time.Hour), "refresh-1")
	if _, err := WatchDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("WatchDir of a missing folder: no error")
	}
	s := newTestSource(g, f, files, "gmail")
	for range 10 {
		if _, err := s.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if s.looks != 10 {
		t.Fatalf("10 unwatched calls looked %d times; want 10", s.looks)
	}
}

// TestWatchEndsWhenTheFolderGoes: a token folder moved away and deleted ends the watch (Gen 0,
// so sources look at the files again), and the watch still closes promptly.
func TestWatchEndsWhenTheFolderGoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := WatchDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(moved); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); w.Gen() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Gen() = %d ten seconds after the folder went; want 0", w.Gen())
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
	if w.Gen() != 0 {
		t.Errorf("Gen() = %d after Close; want 0", w.Gen())
	}
}
