package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/drivesync"
	"github.com/jck411/mcp-servers/servers/notes/drivesync/drivetest"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/kit"
)

// startSynced serves a notes server on state that syncs with the fake Drive. Background
// cycles wait a day, so each test drives the cycles with sync_notes.
func startSynced(t *testing.T, fake *drivetest.Fake, state string, extra ...string) *env {
	t.Helper()
	signIn := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), "https://www.googleapis.com/auth/drive.file")[:4]
	args := append(signIn, "--sync", "drive", "--drive-endpoint", fake.Endpoint(), "--sync-interval", "24h", "--sync-delay", "10m")
	return startIn(t, state, append(args, extra...)...)
}

func (e *env) sync() syncOutput {
	e.t.Helper()
	return call[syncOutput](e, "sync_notes", nil)
}

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(e.dir, rel))
	return err == nil
}

func (e *env) syncHealth() (string, string) {
	e.t.Helper()
	r := e.h.Server.Health(e.t.Context()).Checks["drive sync"]
	return r.Status, r.Detail
}

func TestSyncFirstRunAndSecondMachine(t *testing.T) {
	t.Parallel()
	fake := drivetest.New(t)
	seed := map[string]string{"groceries.md": "# Groceries\n\n- oat milk\n", "projects/garden.md": "---\ntitle: Garden\n---\n\nPlant zucchini.\n"}
	a := startSynced(t, fake, seeded(t, seed))
	a.sync() // the first cycle may have run in the background already; either way it is done now
	root := fake.Root("Notes")
	if root == "" {
		t.Fatal("no Notes folder on Drive")
	}
	if got := fake.Notes(root); !mapsEqual(got, seed) {
		t.Fatalf("Drive has %v, want %v", got, seed)
	}
	if st, detail := a.syncHealth(); st != "ok" || !strings.Contains(detail, `Drive folder "Notes", 2 notes`) {
		t.Errorf("health = %s %q", st, detail)
	}

	b := startSynced(t, fake, t.TempDir())
	b.sync()
	for rel, content := range seed {
		if got := b.file(rel); got != content {
			t.Errorf("machine B %s = %q, want %q", rel, got, content)
		}
	}
	if got := b.search("zucchini"); !slices.Equal(got, []string{"projects/garden.md"}) {
		t.Errorf("search on B = %v", got)
	}

	// Nothing changed: one changes call, no listing.
	lists := fake.Hits("GET /drive/v3/files")
	if rep := b.sync(); !rep.Idle || rep.Notes != 2 {
		t.Errorf("idle sync = %+v", rep)
	}
	if fake.Hits("GET /drive/v3/files") != lists {
		t.Error("an idle sync listed the Drive folder")
	}
}

func TestSyncChangesBothWays(t *testing.T) {
	t.Parallel()
	fake := drivetest.New(t)
	e := startSynced(t, fake, t.TempDir())
	e.sync()
	root := fake.Root("Notes")
	call[writeOutput](e, "create_note", map[string]any{"path": "ideas/tea", "content": "Try sencha."})

	steps := []struct {
		name  string
		act   func()
		check func(rep syncOutput) string
	}{
		{"created here", func() {}, func(rep syncOutput) string {
			if !slices.Equal(rep.Uploaded, []string{"ideas/tea.md"}) || fake.Notes(root)["ideas/tea.md"] != e.file("ideas/tea.md") {
				return "not uploaded"
			}
			return ""
		}},
		{"edited on Drive", func() {
			fake.Edit(fake.ID(root, "ideas/tea.md"), "---\ntitle: Tea\n---\n\nTry gyokuro instead.\n")
		}, func(rep syncOutput) string {
			if !slices.Equal(rep.Downloaded, []string{"ideas/tea.md"}) || !strings.Contains(e.file("ideas/tea.md"), "gyokuro") || len(e.search("gyokuro")) != 1 {
				return "edit not downloaded and indexed"
			}
			return ""
		}},
		{"edited here", func() {
			call[writeOutput](e, "update_note", map[string]any{"path": "ideas/tea", "mode": "append", "content": "And matcha."})
		}, func(rep syncOutput) string {
			if !slices.Equal(rep.Uploaded, []string{"ideas/tea.md"}) || !strings.Contains(fake.Notes(root)["ideas/tea.md"], "And matcha.") {
				return "edit not uploaded"
			}
			return ""
		}},
		{"renamed on Drive", func() {
			fake.Rename(fake.ID(root, "ideas/tea.md"), "green-tea.md")
		}, func(rep syncOutput) string {
			if e.exists("ideas/tea.md") || !strings.Contains(e.file("ideas/green-tea.md"), "matcha") || len(rep.Moved) != 1 {
				return "rename not applied here"
			}
			return ""
		}},
		{"moved here", func() {
			call[moveOutput](e, "move_note", map[string]any{"path": "ideas/green-tea", "new_path": "drinks/green-tea"})
		}, func(rep syncOutput) string {
			if fake.ID(root, "drinks/green-tea.md") == "" || fake.ID(root, "ideas/green-tea.md") != "" || len(rep.Uploaded) != 0 {
				return "move not applied on Drive (or re-uploaded)"
			}
			return ""
		}},
		{"added on Drive by another device", func() {
			fake.Put(root, "inbox/from-phone.md", "# From phone\n\nCall the plumber.\n")
		}, func(rep syncOutput) string {
			if !slices.Equal(rep.Downloaded, []string{"inbox/from-phone.md"}) || len(e.search("plumber")) != 1 {
				return "new Drive note not downloaded"
			}
			return ""
		}},
		{"folder renamed on Drive", func() {
			file, _, _ := fake.File(fake.ID(root, "inbox/from-phone.md"))
			fake.Rename(file.Parents[0], "phone")
		}, func(rep syncOutput) string {
			if e.exists("inbox/from-phone.md") || !e.exists("phone/from-phone.md") || !slices.Equal(rep.Moved, []string{"inbox/from-phone.md -> phone/from-phone.md"}) {
				return "folder rename not applied here"
			}
			return ""
		}},
		{"deleted on Drive", func() {
			fake.Trash(fake.ID(root, "phone/from-phone.md"))
		}, func(rep syncOutput) string {
			trashed := call[listOutput](e, "list_notes", map[string]any{"trashed": true})
			if e.exists("phone/from-phone.md") || len(trashed.Notes) != 1 || !slices.Equal(rep.TrashedLocal, []string{"phone/from-phone.md"}) {
				return "Drive deletion not moved to the trash here"
			}
			return ""
		}},
		{"deleted here", func() {
			call[deleteOutput](e, "delete_note", map[string]any{"path": "drinks/green-tea"})
		}, func(rep syncOutput) string {
			if _, ok := fake.Notes(root)["drinks/green-tea.md"]; ok || !slices.Equal(rep.TrashedRemote, []string{"drinks/green-tea.md"}) {
				return "deletion not sent to Drive's trash"
			}
			return ""
		}},
	}
	for _, st := range steps {
		st.act()
		rep := e.sync()
		if msg := st.check(rep); msg != "" {
			t.Fatalf("%s: %s; report %+v; Drive %v", st.name, msg, rep, fake.Notes(root))
		}
		if rep.Failed != nil || len(rep.Conflicts) != 0 {
			t.Fatalf("%s: report %+v", st.name, rep)
		}
	}
	if rep := e.sync(); !quiet(rep) {
		t.Errorf("sync after the steps = %+v, want nothing to do", rep)
	}
}

func TestSyncConflicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		local     func(e *env) // what this machine does
		remote    func(f *drivetest.Fake, id string)
		wantHere  string // content at plan.md afterwards ("" = absent)
		wantCopy  string // content of the conflict copy ("" = none)
		wantDrive string // Drive's plan.md afterwards
	}{
		{"edited on both sides", func(e *env) { e.write("plan.md", "mine\n") }, func(f *drivetest.Fake, id string) { f.Edit(id, "theirs\n") },
			"mine\n", "theirs\n", "mine\n"},
		{"same edit on both sides", func(e *env) { e.write("plan.md", "same\n") }, func(f *drivetest.Fake, id string) { f.Edit(id, "same\n") },
			"same\n", "", "same\n"},
		{"deleted here, edited on Drive", func(e *env) { _ = os.Remove(filepath.Join(e.dir, "plan.md")) }, func(f *drivetest.Fake, id string) { f.Edit(id, "theirs\n") },
			"theirs\n", "", "theirs\n"},
		{"edited here, deleted on Drive", func(e *env) { e.write("plan.md", "mine\n") }, func(f *drivetest.Fake, id string) { f.Delete(id) },
			"mine\n", "", "mine\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := drivetest.New(t)
			e := startSynced(t, fake, t.TempDir())
			e.write("plan.md", "original\n")
			e.sync()
			root := fake.Root("Notes")
			tt.local(e)
			tt.remote(fake, fake.ID(root, "plan.md"))
			rep := e.sync()
			if len(rep.Failed) > 0 {
				t.Fatalf("report %+v", rep)
			}
			here := ""
			if e.exists("plan.md") {
				here = e.file("plan.md")
			}
			if here != tt.wantHere {
				t.Errorf("here plan.md = %q, want %q", here, tt.wantHere)
			}
			drive := fake.Notes(root)
			if drive["plan.md"] != tt.wantDrive {
				t.Errorf("Drive plan.md = %q, want %q", drive["plan.md"], tt.wantDrive)
			}
			if tt.wantCopy == "" {
				if len(rep.Conflicts) != 0 || len(drive) != 1 {
					t.Errorf("unexpected conflict copies: report %+v, Drive %v", rep, drive)
				}
				return
			}
			if len(rep.Conflicts) != 1 || !strings.HasPrefix(rep.Conflicts[0], "plan.conflict-") {
				t.Fatalf("conflicts = %v", rep.Conflicts)
			}
			cp := rep.Conflicts[0]
			if e.file(cp) != tt.wantCopy || drive[cp] != tt.wantCopy {
				t.Errorf("conflict copy %s: here %q, Drive %q, want %q", cp, e.file(cp), drive[cp], tt.wantCopy)
			}
			if _, detail := e.syncHealth(); !strings.Contains(detail, "1 conflict copies since start, latest "+cp) {
				t.Errorf("health detail %q does not name the conflict copy", detail)
			}
			if rep := e.sync(); !quiet(rep) {
				t.Errorf("the sync after the conflict = %+v, want nothing to do", rep)
			}
		})
	}
}

func TestSyncFirstRunWithDifferentNotesOnBothSides(t *testing.T) {
	t.Parallel()
	fake := drivetest.New(t)
	a := startSynced(t, fake, seeded(t, map[string]string{"todo.md": "from A\n", "shared.md": "identical\n"}))
	a.sync()
	b := startSynced(t, fake, seeded(t, map[string]string{"todo.md": "from B\n", "shared.md": "identical\n", "only-b.md": "B alone\n"}))
	rep := b.sync()
	if quiet(rep) { // the first cycle ran in the background; its outcome is what counts
		rep = syncOutput{Conflicts: conflictCopies(t, b.dir)}
	}
	if len(rep.Conflicts) != 1 || b.file("todo.md") != "from B\n" || b.file(rep.Conflicts[0]) != "from A\n" {
		t.Fatalf("B after its first sync: report %+v", rep)
	}
	a.sync()
	root := fake.Root("Notes")
	want := map[string]string{"todo.md": "from B\n", rep.Conflicts[0]: "from A\n", "shared.md": "identical\n", "only-b.md": "B alone\n"}
	if got := fake.Notes(root); !mapsEqual(got, want) {
		t.Errorf("Drive = %v, want %v", got, want)
	}
	for rel, content := range want {
		if a.file(rel) != content {
			t.Errorf("A %s = %q, want %q", rel, a.file(rel), content)
		}
	}
}

func TestSyncFailures(t *testing.T) {
	t.Parallel()
	t.Run("Drive folder trashed", func(t *testing.T) {
		fake := drivetest.New(t)
		e := startSynced(t, fake, t.TempDir())
		e.write("keep.md", "keep me\n")
		e.sync()
		fake.Trash(fake.Root("Notes"))
		msg := e.fail("sync_notes", nil)
		if !strings.Contains(msg, "restore the folder \"Notes\" from Drive's trash") {
			t.Errorf("error = %q", msg)
		}
		if e.file("keep.md") != "keep me\n" {
			t.Error("a trashed Drive folder deleted the local notes")
		}
		if st, detail := e.syncHealth(); st != "warn" || !strings.Contains(detail, "last sync failed") {
			t.Errorf("health = %s %q", st, detail)
		}
	})
	t.Run("listing lags behind Drive", func(t *testing.T) {
		fake := drivetest.New(t)
		e := startSynced(t, fake, seeded(t, map[string]string{"proj/plan.md": "the plan\n"}))
		e.sync()
		root := fake.Root("Notes")
		id := fake.ID(root, "proj/plan.md")
		file, _, _ := fake.File(id)
		fake.Lag(id, true)
		fake.Lag(file.Parents[0], true)
		fake.Rename(id, "renamed.md")
		e.write("other.md", "makes the cycle list the folder\n")
		rep := e.sync()
		if len(rep.TrashedLocal) != 0 || !e.exists("proj/renamed.md") || e.exists("proj/plan.md") || len(rep.Failed) != 0 {
			t.Errorf("a note missing from a listing but alive on Drive: report %+v", rep)
		}
		if fake.Hits("GET /drive/v3/files/{id}") < 2 {
			t.Error("the missing note and its folder were not looked up")
		}
	})
	t.Run("not signed in", func(t *testing.T) {
		fake := drivetest.New(t)
		missing := filepath.Join(t.TempDir(), "none.json")
		e := startIn(t, t.TempDir(), "--sync", "drive", "--drive-endpoint", fake.Endpoint(), "--google-token-file", missing, "--google-client-file", missing, "--sync-interval", "24h")
		if msg := e.fail("sync_notes", nil); !strings.Contains(msg, "notes auth login") {
			t.Errorf("error = %q", msg)
		}
		if st, _ := e.syncHealth(); st != "warn" {
			t.Errorf("health = %s", st)
		}
		call[writeOutput](e, "create_note", map[string]any{"path": "works", "content": "Notes work without Drive."})
	})
	t.Run("Drive fails an upload", func(t *testing.T) {
		fake := drivetest.New(t)
		e := startSynced(t, fake, t.TempDir())
		e.sync()
		e.write("a.md", "alpha\n")
		fake.FailNext("POST /upload/drive/v3/files", 1, http.StatusInternalServerError) // a create is not retried: it might have happened
		rep := e.sync()
		if len(rep.Failed) != 1 || !strings.HasPrefix(rep.Failed[0], "a.md: ") {
			t.Fatalf("report %+v", rep)
		}
		if st, _ := e.syncHealth(); st != "warn" {
			t.Errorf("health after a failed upload = %s", st)
		}
		if rep := e.sync(); !slices.Equal(rep.Uploaded, []string{"a.md"}) {
			t.Errorf("retry = %+v", rep)
		}
		if st, _ := e.syncHealth(); st != "ok" {
			t.Errorf("health after the retry = %s", st)
		}
	})
}

func TestSyncFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--sync", "dropbox"},
		{"--sync", "drive", "--sync-interval", "1s"},
		{"--sync", "drive", "--sync-delay", "-1s"},
		{"--sync", "drive", "--sync-folder", "a/b"},
	} {
		var stderr bytes.Buffer
		code := kit.Run(t.Context(), spec(), append(args, "--list-tools", "--state-dir", t.TempDir()), func(string) string { return "" }, &bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), args[len(args)-2]) {
			t.Errorf("%v: exit %d, want 2 naming the flag; %s", args, code, stderr.String())
		}
	}
	h := startSynced(t, drivetest.New(t), t.TempDir(), "--read-only")
	if slices.Contains(h.h.Server.ToolNames(), "sync_notes") {
		t.Error("sync_notes offered in read-only mode")
	}
	if !slices.Contains(start(t).h.Server.ToolNames(), "get_note") || slices.Contains(start(t).h.Server.ToolNames(), "sync_notes") {
		t.Error("sync_notes offered without --sync")
	}
	_ = drivesync.MaxNoteBytes
}

// seeded is a state folder whose notes folder holds notes.
func seeded(t *testing.T, notes map[string]string) string {
	t.Helper()
	state := t.TempDir()
	for rel, content := range notes {
		p := filepath.Join(state, "notes", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return state
}

// conflictCopies lists the conflict copies in a notes folder.
func conflictCopies(t *testing.T, dir string) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(dir, "*.conflict-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range found {
		found[i] = filepath.Base(p)
	}
	return found
}

// quiet reports whether a cycle had nothing to do.
func quiet(rep syncOutput) bool {
	return len(rep.Uploaded)+len(rep.Downloaded)+len(rep.Moved)+len(rep.TrashedLocal)+len(rep.TrashedRemote)+len(rep.Conflicts)+len(rep.Failed) == 0
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
