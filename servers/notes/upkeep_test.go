package main

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vaultgen"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// tablePages lists the database pages of table in the SQLite database file.
func tablePages(t *testing.T, file, table string) []int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if len(out) < 2 {
		t.Fatalf("%s has %d pages", table, len(out))
	}
	return out
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestServesWhileIndexing: while the first build is held up, /healthz says the index is being
// built and how far it is, a note is read by its path, and a search waits briefly, then
// answers from what is indexed and says so; once the build ends, searches find everything.
func TestServesWhileIndexing(t *testing.T) {
	t.Parallel()
	vault := t.TempDir()
	opt := vaultgen.Options{Notes: 300, Seed: 5}
	if _, err := vaultgen.Generate(vault, opt); err != nil {
		t.Fatal(err)
	}
	paths := vaultgen.Paths(opt)
	n, err := newStore(storeConfig{notesDir: vault, indexFile: filepath.Join(t.TempDir(), "ix.sqlite"), scanInterval: 2 * time.Second}, discard())
	if err != nil {
		t.Fatal(err)
	}
	n.mu.Lock() // the build reads its batch, then waits for this to write it
	held := true
	defer func() {
		if held {
			n.mu.Unlock()
		}
	}()
	ctx, stop := context.WithCancel(context.Background())
	n.stop = stop
	n.bg.Go(func() { n.run(ctx) })
	defer n.close()

	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if res := n.health(t.Context()); strings.HasPrefix(res.Detail, "building the index: 0 of 300 notes") && res.Status == "warn" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health while building = %+v", n.health(t.Context()))
		}
	}
	if _, out, err := n.getNote(t.Context(), nil, getNoteInput{Path: paths[7]}); err != nil || out.Path != paths[7] || out.Content == "" {
		t.Errorf("get_note while building = %+v, %v", out, err)
	}
	began := time.Now()
	_, out, err := n.findNotes(t.Context(), nil, findInput{Query: "the"})
	took := time.Since(began)
	if err != nil || len(out.Notes) != 0 || !strings.Contains(out.Index, "being built: 0 of 300 notes indexed so far") {
		t.Errorf("search while building = %+v, %v", out, err)
	}
	if took < buildWait/2 || took > 5*buildWait {
		t.Errorf("a search while building waited %v, want about %v", took, buildWait)
	}

	n.mu.Unlock()
	held = false
	select {
	case <-n.up.built:
	case <-time.After(time.Minute):
		t.Fatal("the build did not end")
	}
	_, out, err = n.findNotes(t.Context(), nil, findInput{Query: "the"})
	if err != nil || len(out.Notes) == 0 || out.Index != "" {
		t.Errorf("search after the build = %d notes, %q, %v", len(out.Notes), out.Index, err)
	}
	if res := n.health(t.Context()); res.Status != "ok" || res.Detail != "300 notes" {
		t.Errorf("health after the build = %+v", res)
	}
}

// TestListensBeforeIndexing: the server answers /healthz and reads notes right after it
// starts, whatever the size of the folder, because the index is built in the background.
func TestListensBeforeIndexing(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	opt := vaultgen.Options{Notes: 400, Seed: 6}
	if _, err := vaultgen.Generate(filepath.Join(state, "notes"), opt); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	h := mcptest.Start(t, spec(), "--state-dir", state)
	resp, err := http.Get(h.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz right after the start: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	cs := h.Connect(t, "")
	out, _ := mcptest.CallFor[noteOutput](t, cs, "get_note", map[string]any{"path": vaultgen.Paths(opt)[3]})
	bound := time.Second
	if raceEnabled { // the race detector slows the start several times over on a busy machine
		bound = 3 * time.Second
	}
	if took := time.Since(began); took > bound || out.Content == "" {
		t.Errorf("start, /healthz and get_note took %v (%d bytes read)", took, len(out.Content))
	}
	if res := waitIndexed(t, h); res.Status != "ok" || res.Detail != "400 notes" {
		t.Errorf("index after the build: %+v", res)
	}
}

// TestDamagedIndexRebuiltAside: an index damaged while the server was down is found, rebuilt
// beside it from the files and put in its place, while the server serves.
func TestDamagedIndexRebuiltAside(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	opt := vaultgen.Options{Notes: 120, Seed: 8}
	if _, err := vaultgen.Generate(filepath.Join(state, "notes"), opt); err != nil {
		t.Fatal(err)
	}
	e := startIn(t, state)
	title := strings.TrimSuffix(filepath.Base(vaultgen.Paths(opt)[100]), ".md")
	want := e.search(`"` + title + `"`)
	if len(want) == 0 {
		t.Fatalf("no note found for %q", title)
	}
	e.h.Server.Close()

	// Damage the full-text index's pages, which opening the database does not read.
	file := filepath.Join(state, "notes-index.sqlite")
	pages := tablePages(t, file, "fts_data")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages[1:] {
		copy(data[(p-1)*4096:p*4096], strings.Repeat("\xa5", 4096))
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}

	e = startIn(t, state)
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(e.h.Logs(), "the damaged index was rebuilt"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild within three minutes; logs:\n%s", e.h.Logs())
		}
	}
	waitIndexed(t, e.h)
	if got := e.search(`"` + title + `"`); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after the rebuild: %v, want %v", got, want)
	}
	if res := e.h.Server.Health(t.Context()).Checks["index"]; res.Status != "ok" || res.Detail != "120 notes" {
		t.Errorf("index after the rebuild: %+v", res)
	}
	if _, err := os.Stat(file + ".rebuild"); !os.IsNotExist(err) {
		t.Errorf("the rebuild's file is left: %v", err)
	}
}

func TestProgressSaysWhatTheBuildDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		st   upkeepState
		want string
	}{
		{upkeepState{phase: phaseBuilding, listing: true, total: 42000}, "building the index: listing the notes folder, 42000 notes found so far; searches answer from those indexed"},
		{upkeepState{phase: phaseBuilding, done: 500, total: 100000}, "building the index: 500 of 100000 notes indexed so far; searches answer from those indexed"},
	} {
		n := &store{}
		n.up.init()
		n.up.st = tc.st
		if got := n.health(t.Context()); got.Detail != tc.want || got.Status != "warn" {
			t.Errorf("health = %+v, want warn %q", got, tc.want)
		}
		if got := tc.st.note(); !strings.Contains(got, strings.TrimPrefix(strings.Split(tc.want, ";")[0], "building the index: ")) {
			t.Errorf("note = %q", got)
		}
	}
}
