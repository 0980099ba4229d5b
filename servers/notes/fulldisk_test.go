package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// tinyDisk mounts a tmpfs of size (as mount takes it: "2m") on a new temporary folder, and
// unmounts it when the test ends. It needs root: without it the test is skipped, except under
// CI=true, where it fails (CI must run it).
func tinyDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a %s tmpfs on %s: %v (the full-disk test needs root)", size, dir, err)
		}
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file in dir until the disk is full, then frees keep bytes of it.
func fill(t *testing.T, dir string, keep int64) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "filler"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	if keep > 0 {
		info, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(max(0, info.Size()-keep)); err != nil {
			t.Fatal(err)
		}
	}
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// distinctWords is n words no other note has, each different.
func distinctWords(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for i := range n {
		for range 6 + r.IntN(4) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		if i%12 == 11 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// startFull serves a notes server on state with the upkeep retrying every 200 ms at most.
func startFull(t *testing.T, state string) *env {
	t.Helper()
	h := mcptest.Start(t, specWith(&settings{retryMax: 200 * time.Millisecond}), "--state-dir", state)
	return &env{t: t, h: h, cs: h.Connect(t, ""), dir: filepath.Join(state, "notes")}
}

// waitHealth waits until the index check's detail satisfies ok, for up to limit.
func waitHealth(t *testing.T, e *env, limit time.Duration, what string, ok func(status, detail string) bool) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		res := e.h.Server.Health(t.Context()).Checks["index"]
		if ok(res.Status, res.Detail) {
			return res.Detail
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the index is not %s: %s: %s", limit, what, res.Status, res.Detail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFullDisk: on a 4 MiB disk holding the notes and the index, a note the index cannot take
// is still written and read; /healthz says the index is behind and why; searches answer from
// what is indexed and say so; the server restarts with the disk still full; once space is
// freed the index catches up by itself, and its write-ahead log gives its space back. Notes
// deleted outside while the disk is full leave the index, and their space free.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	state := tinyDisk(t, "4m")
	e := startFull(t, state)
	waitIndexed(t, e.h)
	for i := range 3 {
		call[writeOutput](e, "create_note", map[string]any{"path": fmt.Sprintf("old/n%d", i), "content": fmt.Sprintf("keeper%d words\n\n", i) + distinctWords(uint64(i), 150)})
	}
	for i := range 4 { // large notes of common words, cheap to index
		call[writeOutput](e, "create_note", map[string]any{"path": fmt.Sprintf("long/n%d", i), "content": fmt.Sprintf("longnote%d\n\n", i) + hugeBody(64<<10, true)})
	}
	if got := e.search("keeper1"); !slices.Equal(got, []string{"old/n1.md"}) {
		t.Fatalf("before the disk fills: %v", got)
	}

	// The disk fills up, leaving room for a note but not for what the index makes of it.
	fill(t, state, 24<<10)
	big := "bigword " + distinctWords(99, 1500)
	w := call[writeOutput](e, "create_note", map[string]any{"path": "big", "content": big})
	if w.Path != "big.md" || !w.Changed {
		t.Fatalf("create on a full index = %+v", w)
	}
	detail := waitHealth(t, e, 10*time.Second, "behind", func(status, detail string) bool {
		return status == "warn" && strings.Contains(detail, "full")
	})
	t.Logf("behind: %s", detail)
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "big"}); !strings.HasPrefix(got.Content, "bigword ") {
		t.Errorf("get_note of the note the index could not take: %.60q", got.Content)
	}
	out := call[listOutput](e, "list_notes", map[string]any{"query": "keeper2"})
	if len(out.Notes) != 1 || !strings.Contains(out.Index, "out of date") {
		t.Errorf("a search while the index is behind = %+v", out)
	}
	if resp, err := http.Get(e.h.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz while behind: %v %v", resp, err)
	} else {
		_ = resp.Body.Close()
	}

	// A restart with the disk still full: the server starts and serves.
	e.h.Server.Close()
	e = startFull(t, state)
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "old/n0"}); !strings.HasPrefix(got.Content, "keeper0") {
		t.Errorf("get_note after a restart on a full disk: %.60q", got.Content)
	}
	waitHealth(t, e, 10*time.Second, "behind", func(status, detail string) bool {
		return status == "warn" && strings.Contains(detail, "full")
	})

	// Space comes back: the index catches up by itself and its log shrinks.
	if err := os.Remove(filepath.Join(state, "filler")); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, e, 20*time.Second, "caught up", func(status, _ string) bool { return status == "ok" })
	if got := e.search("bigword"); !slices.Equal(got, []string{"big.md"}) {
		t.Errorf("the note written while the disk was full, after space came back: %v", got)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, err := os.Stat(filepath.Join(state, "notes-index.sqlite-wal"))
		if err != nil || info.Size() == 0 {
			break // checkpointed and truncated after the catch-up
		}
		if time.Now().After(deadline) {
			t.Fatalf("the write-ahead log holds %d bytes 10 s after catching up; logs:\n%s", info.Size(), e.h.Logs())
		}
	}

	// Notes deleted by hand while the disk is full again: the index lets them go and the
	// space they held stays free.
	fill(t, state, 0)
	for _, p := range []string{"long/n0.md", "long/n1.md", "long/n2.md", "old/n0.md"} {
		if err := os.Remove(filepath.Join(e.dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	freed := freeBytes(t, state)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := e.search("longnote0 OR longnote1 OR longnote2 OR keeper0")
		res := e.h.Server.Health(t.Context()).Checks["index"]
		if len(got) == 0 && res.Status == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notes deleted on a full disk: still found %v; index %s", got, res.Detail)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if free := freeBytes(t, state); free < freed/2 {
		t.Errorf("the index took the space deleting notes freed: %d bytes free, %d right after the deletion", free, freed)
	}
}
