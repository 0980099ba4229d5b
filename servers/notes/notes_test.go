package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type env struct {
	t   *testing.T
	h   *mcptest.Harness
	cs  *mcp.ClientSession
	dir string
}

// start serves a notes server on a fresh state directory; scans run before every read.
func start(t *testing.T, args ...string) *env {
	t.Helper()
	state := t.TempDir()
	return startIn(t, state, args...)
}

func startIn(t *testing.T, state string, args ...string) *env {
	t.Helper()
	h := mcptest.Start(t, spec(), append([]string{"--state-dir", state, "--scan-interval", "0"}, args...)...)
	waitIndexed(t, h)
	return &env{t: t, h: h, cs: h.Connect(t, ""), dir: filepath.Join(state, "notes")}
}

// waitIndexed waits until the server's index is open and built (it serves from its start, the
// index is built in the background), so that tests find what they wrote before the start.
func waitIndexed(t *testing.T, h *mcptest.Harness) health.Result {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		res := h.Server.Health(t.Context()).Checks["index"]
		if !strings.HasPrefix(res.Detail, "opening") && !strings.HasPrefix(res.Detail, "building") {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index is still %q after five minutes", res.Detail)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func call[T any](e *env, tool string, args map[string]any) T {
	e.t.Helper()
	out, _ := mcptest.CallFor[T](e.t, e.cs, tool, args)
	return out
}

func (e *env) fail(tool string, args map[string]any) string {
	e.t.Helper()
	return mcptest.CallError(e.t, e.cs, tool, args)
}

func (e *env) file(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) search(q string, extra ...any) []string {
	e.t.Helper()
	args := map[string]any{"query": q}
	for i := 0; i+1 < len(extra); i += 2 {
		args[extra[i].(string)] = extra[i+1]
	}
	out := call[listOutput](e, "list_notes", args)
	var paths []string
	for _, n := range out.Notes {
		paths = append(paths, n.Path)
	}
	return paths
}

func TestCreateGetAndFiles(t *testing.T) {
	t.Parallel()
	e := start(t)
	w := call[writeOutput](e, "create_note", map[string]any{
		"path": "projects/garden", "content": "# Garden plan\n\nPlant #tomatoes in May.\n\n## Beds\n\nThree raised beds.\n\n## Budget\n\n200 euros.\n",
		"tags": []string{"Home", "#garden"},
	})
	if w.Path != "projects/garden.md" || w.Hash == "" || !slices.Equal(w.Tags, []string{"garden", "home", "tomatoes"}) {
		t.Fatalf("create = %+v", w)
	}
	raw := e.file("projects/garden.md")
	for _, want := range []string{"---\ntitle: Garden plan\n", "tags: [garden, home, tomatoes]\n", "created: ", "updated: ", "---\n\n# Garden plan\n"} {
		if !strings.Contains(raw, want) {
			t.Errorf("file lacks %q:\n%s", want, raw)
		}
	}
	n := call[noteOutput](e, "get_note", map[string]any{"path": "projects/garden.md"})
	if n.Title != "Garden plan" || n.Hash != w.Hash || !strings.HasPrefix(n.Content, "# Garden plan") {
		t.Errorf("get = %+v", n)
	}
	sec := call[noteOutput](e, "get_note", map[string]any{"path": "projects/garden", "heading": "beds"})
	if sec.Content != "## Beds\n\nThree raised beds.\n" {
		t.Errorf("section = %q", sec.Content)
	}
	out := call[noteOutput](e, "get_note", map[string]any{"path": "projects/garden", "outline": true})
	if len(out.Outline) != 3 || out.Outline[2].Text != "Budget" || out.Outline[2].Level != 2 || out.Content != "" {
		t.Errorf("outline = %+v", out)
	}
	if msg := e.fail("get_note", map[string]any{"path": "projects/garden", "heading": "Nope"}); !strings.Contains(msg, `"Beds"`) {
		t.Errorf("missing heading error = %s", msg)
	}
	if msg := e.fail("create_note", map[string]any{"path": "projects/garden.md", "content": "x"}); !strings.Contains(msg, "already exists") {
		t.Errorf("overwrite refusal = %s", msg)
	}
	if e.file("projects/garden.md") != raw {
		t.Error("a refused create changed the file")
	}
	w2 := call[writeOutput](e, "create_note", map[string]any{"path": "projects/garden.md", "content": "new", "overwrite": true})
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "projects/garden"}); got.Content != "new\n" || got.Hash != w2.Hash {
		t.Errorf("after overwrite = %+v", got)
	}
	if msg := e.fail("get_note", map[string]any{"path": "nothing/here"}); !strings.Contains(msg, "no such note") {
		t.Errorf("missing note = %s", msg)
	}
}

func TestPathConfinement(t *testing.T) {
	t.Parallel()
	e := start(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("---\ntitle: secret\n---\nclassified words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.dir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(e.dir, "leak.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x.md", "/etc/passwd", "a/../../x", ".trash/x", "a\\b", "a//b", ".git/config"} {
		if msg := e.fail("create_note", map[string]any{"path": p, "content": "x"}); !strings.Contains(msg, "path") {
			t.Errorf("create %q: %s", p, msg)
		}
	}
	for _, p := range []string{"escape/secret.md", "leak.md"} {
		e.fail("get_note", map[string]any{"path": p})
		e.fail("create_note", map[string]any{"path": p, "content": "x", "overwrite": true})
		e.fail("update_note", map[string]any{"path": p, "mode": "append", "content": "x"})
	}
	e.fail("create_note", map[string]any{"path": "escape/new.md", "content": "x"})
	if _, err := os.Stat(filepath.Join(outside, "new.md")); err == nil {
		t.Error("a note was written through a symlink outside the folder")
	}
	if got := e.search("classified"); len(got) != 0 {
		t.Errorf("search found files outside the folder: %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); !bytes.Contains(b, []byte("classified")) {
		t.Error("the outside file changed")
	}
}

func TestSearchAndList(t *testing.T) {
	t.Parallel()
	e := start(t)
	notes := []struct{ path, content string }{
		{"work/roadmap.md", "# Roadmap\n\nShip the search engine by March. #planning"},
		{"work/meeting.md", "# Standup\n\nDiscussed the search latency and caching."},
		{"home/recipes/bread.md", "# Sourdough\n\nFlour, water, salt. Bake at 250C. #cooking"},
		{"home/journal.md", "# Journal\n\nRan in the park; searched for a new route. #planning"},
	}
	for _, n := range notes {
		call[writeOutput](e, "create_note", map[string]any{"path": n.path, "content": n.content})
	}
	if got := e.search("search"); len(got) != 3 || !slices.Contains(got, "home/journal.md") {
		t.Errorf("search (stemmed) = %v", got)
	}
	if got := e.search("Roadmap"); len(got) == 0 || got[0] != "work/roadmap.md" {
		t.Errorf("title ranking = %v", got)
	}
	if got := e.search("search", "folder", "work"); len(got) != 2 {
		t.Errorf("folder filter = %v", got)
	}
	if got := e.search("search", "tag", "#planning"); !slices.Equal(got, []string{"home/journal.md", "work/roadmap.md"}) && !slices.Equal(got, []string{"work/roadmap.md", "home/journal.md"}) {
		t.Errorf("tag filter = %v", got)
	}
	if got := e.search(`"search latency"`); !slices.Equal(got, []string{"work/meeting.md"}) {
		t.Errorf("phrase = %v", got)
	}
	if got := e.search("sour*"); !slices.Equal(got, []string{"home/recipes/bread.md"}) {
		t.Errorf("prefix = %v", got)
	}
	if got := e.search("search -latency"); len(got) != 2 || slices.Contains(got, "work/meeting.md") {
		t.Errorf("exclusion = %v", got)
	}
	if got := e.search("flour OR march"); len(got) != 2 {
		t.Errorf("or = %v", got)
	}
	if got := e.search(`AND ( "NEAR` + "\x00"); len(got) != 0 {
		t.Errorf("syntax-looking query = %v", got)
	}
	hit := call[listOutput](e, "list_notes", map[string]any{"query": "caching"})
	if len(hit.Notes) != 1 || !strings.Contains(hit.Notes[0].Snippet, "**caching**") {
		t.Errorf("snippet = %+v", hit)
	}
	e.fail("list_notes", map[string]any{"query": "  ** ()"})
	p1 := call[listOutput](e, "list_notes", map[string]any{"query": "search", "limit": 2})
	p2 := call[listOutput](e, "list_notes", map[string]any{"query": "search", "limit": 2, "offset": p1.NextOffset})
	if !p1.More || p1.NextOffset != 2 || len(p2.Notes) != 1 || p2.More {
		t.Errorf("paging = %+v then %+v", p1, p2)
	}

	all := call[listOutput](e, "list_notes", map[string]any{"sort": "path"})
	if len(all.Notes) != 4 || all.Notes[0].Path != "home/journal.md" {
		t.Errorf("list by path = %+v", all.Notes)
	}
	home := call[listOutput](e, "list_notes", map[string]any{"folder": "home"})
	if len(home.Notes) != 2 {
		t.Errorf("list folder = %+v", home.Notes)
	}
	tagged := call[listOutput](e, "list_notes", map[string]any{"tag": "cooking"})
	if len(tagged.Notes) != 1 || tagged.Notes[0].Path != "home/recipes/bread.md" {
		t.Errorf("list tag = %+v", tagged.Notes)
	}
	time.Sleep(1100 * time.Millisecond) // timestamps have second resolution
	call[writeOutput](e, "update_note", map[string]any{"path": "work/meeting", "mode": "append", "content": "More."})
	recent := call[listOutput](e, "list_notes", map[string]any{"limit": 1})
	if len(recent.Notes) != 1 || recent.Notes[0].Path != "work/meeting.md" || !recent.More {
		t.Errorf("recently updated = %+v", recent)
	}
	tags := call[listTagsOutput](e, "list_note_tags", nil)
	if len(tags.Tags) != 2 || tags.Tags[0] != (tagCount{"planning", 2}) {
		t.Errorf("tags = %+v", tags)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_notes", map[string]any{"sort": "size"}, `sort must be one of "updated", "created", "path", not "size"`},
		{"list_notes", map[string]any{"limit": 1000}, "limit must be at most 200, not 1000"},
		{"list_notes", map[string]any{"offset": -1}, "offset must be at least 0"},
		{"list_notes", map[string]any{"query": "garden", "limit": 0}, "limit must be at least 1, not 0"},
		{"list_notes", map[string]any{"query": ""}, "query must not be empty"},
		// A search is ranked and pages at most 50 hits; listing's own arguments are refused with it.
		{"list_notes", map[string]any{"query": "garden", "limit": 51}, "with query, limit must be at most 50, not 51"},
		{"list_notes", map[string]any{"query": "garden", "sort": "path"}, "sort, trashed and changed_since list notes: leave them out with query"},
		{"list_notes", map[string]any{"query": "garden", "trashed": true}, "sort, trashed and changed_since list notes"},
		{"get_note", map[string]any{"path": "x", "offset": -3}, "offset must be at least 0"},
		{"update_note", map[string]any{"path": "x", "mode": "rewrite", "content": "y"}, `mode must be one of "replace", "append", "prepend", "find_replace", "replace_section", not "rewrite"`},
	} {
		if msg := e.fail(tc.tool, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, msg, tc.want)
		}
	}

}

func TestUpdateModes(t *testing.T) {
	t.Parallel()
	e := start(t)
	body := "# Trip\n\nintro\n\n## Packing\n\n- socks\n\n## Route\n\nnorth then east\n"
	call[writeOutput](e, "create_note", map[string]any{"path": "trip", "content": body})
	steps := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"mode": "append", "content": "appendix"}, body + "appendix\n"},
		{map[string]any{"mode": "prepend", "content": "top"}, "top\n" + body + "appendix\n"},
		{map[string]any{"mode": "find_replace", "find": "north", "content": "south"}, "top\n" + strings.Replace(body, "north", "south", 1) + "appendix\n"},
		{map[string]any{"mode": "replace_section", "heading": "## Packing", "content": "- boots\n- hat"}, "top\n# Trip\n\nintro\n\n## Packing\n\n- boots\n- hat\n\n## Route\n\nsouth then east\nappendix\n"},
		{map[string]any{"mode": "replace", "content": "all new"}, "all new\n"},
	}
	for _, s := range steps {
		s.args["path"] = "trip.md"
		call[writeOutput](e, "update_note", s.args)
		if got := call[noteOutput](e, "get_note", map[string]any{"path": "trip"}); got.Content != s.want {
			t.Errorf("%v:\n got %q\nwant %q", s.args["mode"], got.Content, s.want)
		}
	}
	call[writeOutput](e, "update_note", map[string]any{"path": "trip", "mode": "replace", "content": "a a a"})
	if msg := e.fail("update_note", map[string]any{"path": "trip", "mode": "find_replace", "find": "a", "content": "b"}); !strings.Contains(msg, "3 times") {
		t.Errorf("ambiguous find = %s", msg)
	}
	call[writeOutput](e, "update_note", map[string]any{"path": "trip", "mode": "find_replace", "find": "a", "content": "b", "replace_all": true})
	cur := call[noteOutput](e, "get_note", map[string]any{"path": "trip"})
	if cur.Content != "b b b\n" {
		t.Errorf("replace_all = %q", cur.Content)
	}
	ok := call[writeOutput](e, "update_note", map[string]any{"path": "trip", "mode": "append", "content": "mine", "expected_hash": cur.Hash})
	if msg := e.fail("update_note", map[string]any{"path": "trip", "mode": "append", "content": "stale", "expected_hash": cur.Hash}); !strings.Contains(msg, "changed since you read it") {
		t.Errorf("stale hash = %s", msg)
	}
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "trip"}); got.Hash != ok.Hash || strings.Contains(got.Content, "stale") {
		t.Errorf("after refused write = %+v", got)
	}
	for _, bad := range []map[string]any{
		{"path": "trip", "mode": "insert", "content": "x"},
		{"path": "trip", "mode": "find_replace", "content": "x"},
		{"path": "trip", "mode": "replace_section", "content": "x"},
		{"path": "trip", "mode": "replace_section", "heading": "Nope", "content": "x"},
		{"path": "nope", "mode": "append", "content": "x"},
	} {
		e.fail("update_note", bad)
	}
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	e := start(t)
	call[writeOutput](e, "create_note", map[string]any{"path": "log", "content": "start"})
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan string, writers)
	for i := range writers {
		wg.Go(func() {
			cs := e.h.Connect(t, "")
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "update_note", Arguments: map[string]any{"path": "log", "mode": "append", "content": fmt.Sprintf("line-%d", i)}})
			if err != nil || res.IsError {
				errs <- fmt.Sprint(err, res)
			}
			_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": fmt.Sprintf("race/n%d", i%2), "content": fmt.Sprint(i)}})
			if err != nil {
				errs <- err.Error()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	got := call[noteOutput](e, "get_note", map[string]any{"path": "log"}).Content
	for i := range writers {
		if !strings.Contains(got, fmt.Sprintf("line-%d\n", i)) {
			t.Errorf("append %d lost:\n%s", i, got)
		}
	}
	if list := call[listOutput](e, "list_notes", map[string]any{"folder": "race"}); len(list.Notes) != 2 {
		t.Errorf("racing creates: %+v", list.Notes)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(e.dir, "*", ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestExternalEditsAndRebuild(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	e := startIn(t, state)
	call[writeOutput](e, "create_note", map[string]any{"path": "a", "content": "alpha beta"})
	// an edit by hand, a file dropped in by sync, a deletion by git
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(e.dir, "a.md"), []byte("---\ntitle: A\n---\nalpha gamma #synced\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.dir, "inbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "inbox", "phone.md"), []byte("written on the phone: zeppelin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := e.search("gamma"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("external edit not found: %v", got)
	}
	if got := e.search("beta"); len(got) != 0 {
		t.Errorf("old content still found: %v", got)
	}
	if got := e.search("zeppelin"); !slices.Equal(got, []string{"inbox/phone.md"}) {
		t.Errorf("new external file not found: %v", got)
	}
	if tags := call[listTagsOutput](e, "list_note_tags", nil); len(tags.Tags) != 1 || tags.Tags[0].Tag != "synced" {
		t.Errorf("inline tag from external edit: %+v", tags)
	}
	if err := os.Remove(filepath.Join(e.dir, "inbox", "phone.md")); err != nil {
		t.Fatal(err)
	}
	if got := e.search("zeppelin"); len(got) != 0 {
		t.Errorf("deleted file still found: %v", got)
	}

	// the index deleted while the server is down: it is rebuilt from the files
	e.h.Server.Close()
	for _, f := range []string{"notes-index.sqlite", "notes-index.sqlite-wal", "notes-index.sqlite-shm"} {
		_ = os.Remove(filepath.Join(state, f))
	}
	e2 := startIn(t, state)
	if got := e2.search("gamma"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("after rebuild: %v", got)
	}
	if !strings.Contains(e2.h.Logs(), `"rebuilt":true`) {
		t.Error("no rebuild logged")
	}
	// a corrupt index is rebuilt too
	e2.h.Server.Close()
	if err := os.WriteFile(filepath.Join(state, "notes-index.sqlite"), []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(state, "notes-index.sqlite-wal"))
	e3 := startIn(t, state)
	if got := e3.search("alpha"); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("after corrupt index: %v", got)
	}
}

func TestMoveDeleteRestoreLinks(t *testing.T) {
	t.Parallel()
	e := start(t)
	call[writeOutput](e, "create_note", map[string]any{"path": "ideas/garden", "content": "# Garden\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "index", "content": "See [[ideas/garden]], [[garden|the garden]] and [[Garden#Beds]].\n\n```\n[[ideas/garden]] in code\n```\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "other", "content": "Unrelated [[missing note]]."})
	links := call[linksOutput](e, "get_note_links", map[string]any{"path": "ideas/garden"})
	if !slices.Equal(links.Backlinks, []backlink{{Path: "index.md"}}) {
		t.Errorf("backlinks = %+v", links)
	}
	out := call[linksOutput](e, "get_note_links", map[string]any{"path": "index"})
	if len(out.Outgoing) != 2 || out.Outgoing[0].Path != "ideas/garden.md" || out.Outgoing[1].Path != "ideas/garden.md" {
		t.Errorf("outgoing = %+v", out.Outgoing)
	}
	if o := call[linksOutput](e, "get_note_links", map[string]any{"path": "other"}); len(o.Outgoing) != 1 || o.Outgoing[0].Path != "" {
		t.Errorf("unresolved = %+v", o)
	}

	mv := call[moveOutput](e, "move_note", map[string]any{"path": "ideas/garden", "new_path": "archive/yard"})
	if mv.Path != "archive/yard.md" || mv.LinksUpdated != 3 || !slices.Equal(mv.NotesUpdated, []string{"index.md"}) {
		t.Errorf("move = %+v", mv)
	}
	idx := call[noteOutput](e, "get_note", map[string]any{"path": "index", "offset": 0}).Content
	if !strings.Contains(idx, "See [[archive/yard]], [[archive/yard|the garden]] and [[archive/yard#Beds]].") || !strings.Contains(idx, "[[ideas/garden]] in code") {
		t.Errorf("rewritten links:\n%s", idx)
	}
	if links := call[linksOutput](e, "get_note_links", map[string]any{"path": "archive/yard"}); !slices.Equal(links.Backlinks, []backlink{{Path: "index.md"}}) {
		t.Errorf("backlinks after move = %+v", links)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "ideas")); !os.IsNotExist(err) {
		t.Errorf("empty folder left behind: %v", err)
	}
	e.fail("move_note", map[string]any{"path": "archive/yard", "new_path": "index"})

	del := call[deleteOutput](e, "delete_note", map[string]any{"path": "archive/yard"})
	if del.TrashPath != ".trash/archive/yard.md" {
		t.Errorf("delete = %+v", del)
	}
	if got := e.search("garden"); slices.Contains(got, "archive/yard.md") {
		t.Errorf("trashed note still found: %v", got)
	}
	call[writeOutput](e, "create_note", map[string]any{"path": "archive/yard", "content": "second"})
	del2 := call[deleteOutput](e, "delete_note", map[string]any{"path": "archive/yard"})
	if !strings.HasPrefix(del2.TrashPath, ".trash/archive/yard.") || del2.TrashPath == del.TrashPath {
		t.Errorf("second delete = %+v", del2)
	}
	trash := call[listOutput](e, "list_notes", map[string]any{"trashed": true})
	if len(trash.Notes) != 2 {
		t.Errorf("trash = %+v", trash)
	}
	r := call[writeOutput](e, "restore_note", map[string]any{"trash_path": del2.TrashPath})
	if r.Path != "archive/yard.md" {
		t.Errorf("restore = %+v", r)
	}
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "archive/yard"}); got.Content != "second\n" {
		t.Errorf("restored = %+v", got)
	}
	e.fail("restore_note", map[string]any{"trash_path": del.TrashPath})
	r2 := call[writeOutput](e, "restore_note", map[string]any{"trash_path": "archive/yard.md", "new_path": "ideas/garden"})
	if r2.Path != "ideas/garden.md" || len(e.search("garden")) == 0 {
		t.Errorf("restore elsewhere = %+v", r2)
	}
	e.fail("restore_note", map[string]any{"trash_path": "../../etc/passwd"})
	e.fail("delete_note", map[string]any{"path": "nope"})
}

func TestTagsAndDaily(t *testing.T) {
	t.Parallel()
	e := start(t)
	call[writeOutput](e, "create_note", map[string]any{"path": "n", "content": "text #alpha and #beta here\n\n```\n#notatag\n```\n`#code` #123\n", "tags": []string{"gamma"}})
	if got := call[noteOutput](e, "get_note", map[string]any{"path": "n"}); !slices.Equal(got.Tags, []string{"alpha", "beta", "gamma"}) {
		t.Errorf("tags = %v", got.Tags)
	}
	w := call[writeOutput](e, "tag_note", map[string]any{"path": "n", "add": []string{"Delta"}, "remove": []string{"beta", "gamma"}})
	if !slices.Equal(w.Tags, []string{"alpha", "delta"}) {
		t.Errorf("after tag_note = %v", w.Tags)
	}
	raw := e.file("n.md")
	if !strings.Contains(raw, "tags: [alpha, delta]") || !strings.Contains(raw, "#alpha and beta here") {
		t.Errorf("file after tag_note:\n%s", raw)
	}
	if got := e.search("anything", "tag", "beta"); len(got) != 0 {
		t.Errorf("removed tag still indexed: %v", got)
	}
	if l := call[listOutput](e, "list_notes", map[string]any{"tag": "delta"}); len(l.Notes) != 1 {
		t.Errorf("added tag not listed: %+v", l)
	}
	e.fail("tag_note", map[string]any{"path": "n"})

	d := call[noteOutput](e, "daily_note", map[string]any{"date": "2026-03-04"})
	if d.Path != "daily/2026-03-04.md" || !d.New || d.Content != "# 2026-03-04\n" || !slices.Contains(d.Tags, "daily") {
		t.Errorf("daily = %+v", d)
	}
	again := call[noteOutput](e, "daily_note", map[string]any{"date": "2026-03-04"})
	if again.New || again.Hash != d.Hash {
		t.Errorf("daily twice = %+v", again)
	}
	call[writeOutput](e, "create_note", map[string]any{"path": "templates/daily", "content": "# {{weekday}} {{date}}\n\n## Tasks\n"})
	today := call[noteOutput](e, "daily_note", nil)
	want := time.Now().Format("2006-01-02")
	if today.Path != "daily/"+want+".md" || !strings.Contains(today.Content, "## Tasks") || !strings.Contains(today.Content, time.Now().Weekday().String()) {
		t.Errorf("today = %+v", today)
	}
	e.fail("daily_note", map[string]any{"date": "March 4"})
}

func TestReadOnlyAndFlags(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec(), "--state-dir", t.TempDir(), "--read-only")
	waitIndexed(t, h)
	names := h.Server.ToolNames()
	if !slices.Equal(names, []string{"get_note", "get_note_links", "list_note_tags", "list_notes"}) {
		t.Errorf("read-only tools = %v", names)
	}
	var stderr bytes.Buffer
	for _, args := range [][]string{
		{"--notes-dir", "relative/dir"},
		{"--scan-interval", "-1s"},
		{"--daily-folder", "../x"},
		{"--notes-dir", "/tmp/n", "--index-file", "/tmp/n/index.sqlite", "--create-notes-dir"},
	} {
		stderr.Reset()
		code := kit.Run(t.Context(), spec(), append(args, "--list-tools", "--state-dir", t.TempDir()), func(string) string { return "" }, &bytes.Buffer{}, &stderr)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2; %s", args, code, stderr.String())
		}
	}
	rep := h.Server.Health(t.Context())
	if rep.Status != "ok" {
		t.Errorf("health = %+v", rep)
	}
}

// snapFlags keep the Drive sync, when --sync drive turns it on, away from Drive.
var snapFlags = []string{"--drive-endpoint", "http://127.0.0.1:1/drive/v3/", "--sync-interval", "24h"}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it),
// sync_notes marked as offered only with --sync drive.
func TestToolSnaps(t *testing.T) {
	args := append([]string{"--state-dir", t.TempDir()}, snapFlags...)
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: args, Optional: [][]string{{"--sync", "drive"}}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others,
// sync_notes included.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, append([]string{"--state-dir", t.TempDir(), "--sync", "drive"}, snapFlags...)...)
}
