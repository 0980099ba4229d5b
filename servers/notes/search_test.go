package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startHuge starts a server on notes of one word repeated (1 MB, and 3.5 MB without the race
// detector, which makes indexing it take a minute) and 1 MB of mixed text beside a few
// ordinary notes (indexed as the server starts).
func startHuge(t *testing.T) (*env, []string) {
	t.Helper()
	state := t.TempDir()
	notes := map[string]string{
		"huge/word-1mb.md":  hugeBody(1<<20, false),
		"huge/mixed-1mb.md": hugeBody(1<<20, true),
		"garden.md":         "# Garden\n\nThe alpha bed gets tomatoes.\n",
		"kitchen.md":        "# Kitchen\n\nA copper kettle.\n",
	}
	huge := []string{"huge/mixed-1mb.md", "huge/word-1mb.md"}
	if !raceEnabled {
		notes["huge/word-3.5mb.md"] = hugeBody(3584<<10, false)
		huge = append(huge, "huge/word-3.5mb.md")
	}
	for name, body := range notes {
		p := filepath.Join(state, "notes", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return startIn(t, state), huge
}

// TestSearchHugeNotes: one word repeated through megabytes of a note, and ordinary text
// matching thousands of times, answer within a second over HTTP with a short snippet, and
// many such searches at once hold up neither writes nor /healthz.
func TestSearchHugeNotes(t *testing.T) {
	t.Parallel()
	e, huge := startHuge(t)
	t.Run("answers", func(t *testing.T) { searchHuge(t, e, huge) })
	t.Run("isolation", func(t *testing.T) { searchIsolation(t, e) })
}

func searchHuge(t *testing.T, e *env, huge []string) {
	bound := time.Second
	if raceEnabled {
		bound = 4 * time.Second
	}
	for _, c := range []struct {
		query, folder string
		want          []string
	}{
		{"alpha", "huge", huge},
		{"alpha garden", "", []string{"huge/mixed-1mb.md", "garden.md"}},
		{`"field lamp"`, "", []string{"huge/mixed-1mb.md"}},
	} {
		began := time.Now()
		out := call[listOutput](e, "list_notes", map[string]any{"query": c.query, "folder": c.folder})
		took := time.Since(began)
		if took > bound {
			t.Errorf("%q took %v", c.query, took)
		}
		var got []string
		for _, n := range out.Notes {
			got = append(got, n.Path)
			if len(n.Snippet) > 500 || !strings.Contains(n.Snippet, "**") {
				t.Errorf("%q: %s snippet %q", c.query, n.Path, n.Snippet)
			}
		}
		if !sameSet(got, c.want) {
			t.Errorf("%q found %v, want %v", c.query, got, c.want)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// searchIsolation runs many expensive searches at once, from separate clients, while a note
// is written and /healthz is asked: both answer promptly, and every search either answers or
// is refused as busy (none piles up).
func searchIsolation(t *testing.T, e *env) {
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered, busy := 0, 0
	for range 6 {
		cs := e.h.Connect(t, "")
		wg.Go(func() {
			for ctx.Err() == nil {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{"query": "alpha", "limit": 50}})
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("search: %v", err)
				case !res.IsError:
					answered++
				case strings.Contains(mcptest.Text(res), "busy: too many searches are running; try again in a moment"):
					busy++
				default:
					t.Errorf("search failed: %s", mcptest.Text(res))
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(300 * time.Millisecond) // let the searches pile on
	for i := range 3 {
		began := time.Now()
		call[writeOutput](e, "create_note", map[string]any{"path": "during/n" + string(rune('a'+i)), "content": "written while searching"})
		if took := time.Since(began); took > time.Second {
			t.Errorf("create_note took %v during searches", took)
		}
		began = time.Now()
		resp, err := http.Get(e.h.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if took := time.Since(began); resp.StatusCode != http.StatusOK || took > time.Second {
			t.Errorf("/healthz: %d after %v during searches", resp.StatusCode, took)
		}
	}
	for wait := time.Now().Add(15 * time.Second); time.Now().Before(wait); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		done := answered > 0
		mu.Unlock()
		if done {
			break
		}
	}
	stop()
	wg.Wait()
	if answered == 0 {
		t.Errorf("no search answered (%d busy)", busy)
	}
	t.Logf("%d searches answered, %d refused as busy", answered, busy)
	// Searches the clients gave up on end by the search time limit at the latest.
	deadline := time.Now().Add(searchTimeout + 2*time.Second)
	for {
		res := mcptest.Call(t, e.cs, "list_notes", map[string]any{"query": "written"})
		if !res.IsError {
			var out listOutput
			mcptest.Decode(t, res, &out)
			if len(out.Notes) != 3 {
				t.Errorf("notes written during the searches: %+v", out.Notes)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("searches still busy %v after the clients stopped: %s", searchTimeout, mcptest.Text(res))
		}
	}
}

// TestSearchTimeLimit: a search that outlives its limit is stopped with a limit error that
// says what to do, and the next search works.
func TestSearchTimeLimit(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "notes", "a.md"), []byte("# A\n\nthe alpha note\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := storeConfig{notesDir: filepath.Join(state, "notes"), indexFile: filepath.Join(state, "index.sqlite"), scanInterval: time.Hour}
	n, err := openStore(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer n.close()
	n.searchLimit = time.Nanosecond
	_, _, err = n.searchNotes(t.Context(), nil, searchInput{Query: "alpha", Limit: 10})
	var ke *kit.Error
	if !errors.As(err, &ke) || ke.Code != kit.CodeLimit || !strings.Contains(err.Error(), "took longer than 1ns and was stopped; use more distinctive words") {
		t.Fatalf("search past its limit = %v", err)
	}
	n.searchLimit = 0
	if _, out, err := n.searchNotes(t.Context(), nil, searchInput{Query: "alpha", Limit: 10}); err != nil || len(out.Notes) != 1 {
		t.Fatalf("search after = %+v, %v", out, err)
	}
}
