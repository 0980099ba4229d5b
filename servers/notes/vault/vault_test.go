package vault

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCleanPath(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"a":             "a.md",
		"a.md":          "a.md",
		" dir/Note.MD ": "dir/Note.MD",
		"x/y/z.md":      "x/y/z.md",
		"ünï cödé/ß":    "ünï cödé/ß.md",
		"a.b":           "a.b.md",
	}
	for in, want := range good {
		if got, err := CleanPath(in); err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "  ", "/etc/passwd", "../a", "a/../b", "a/./b", "./a", ".trash/a", "a/.git/b", "a//b", `a\b`, "a\x00b", "a\nb", "a /b", strings.Repeat("x", 300)} {
		if got, err := CleanPath(bad); err == nil {
			t.Errorf("CleanPath(%q) = %q, want an error", bad, got)
		}
	}
	if f, err := CleanFolder("/work/"); err != nil || f != "work" {
		t.Errorf("CleanFolder = %q, %v", f, err)
	}
	if f, err := CleanTrashPath("a/b"); err != nil || f != ".trash/a/b.md" {
		t.Errorf("CleanTrashPath = %q, %v", f, err)
	}
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a", "../x", "a/b.md", "/abs", ".hidden/x", "a/../../b", "C:\\x", "a/b/", "..", "x/..md", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := CleanPath(p)
		if err != nil {
			return
		}
		if !filepath.IsLocal(got) || path.Clean(got) != got || !strings.HasSuffix(strings.ToLower(got), Ext) {
			t.Fatalf("CleanPath(%q) = %q: not a clean local note path", p, got)
		}
		for e := range strings.SplitSeq(got, "/") {
			if e == "" || e == ".." || strings.HasPrefix(e, ".") {
				t.Fatalf("CleanPath(%q) = %q has element %q", p, got, e)
			}
		}
		if again, err := CleanPath(got); err != nil || again != got {
			t.Fatalf("CleanPath is not idempotent on %q: %q, %v", got, again, err)
		}
	})
}

// TestRemoveKeepsSymlinkedFolders deletes and moves the last notes of a folder reached through
// a symlink inside the vault: pruning the emptied folders stops at the symlink, which stays.
func TestRemoveKeepsSymlinkedFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	must(t, v.Write("projects/a.md", []byte("a"), true))
	must(t, v.Write("projects/b.md", []byte("b"), true))
	must(t, os.Symlink("projects", filepath.Join(dir, "work")))
	must(t, v.Remove("work/a.md"))
	must(t, v.Move("work/b.md", "b.md"))
	if info, err := os.Lstat(filepath.Join(dir, "work")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlinked folder was removed: %v", err)
	}
	if info, err := os.Stat(filepath.Join(dir, "projects")); err != nil || !info.IsDir() {
		t.Errorf("the folder the symlink points to: %v", err)
	}
	must(t, v.Remove("b.md"))
	must(t, v.Write("sub/c.md", []byte("c"), true))
	must(t, v.Remove("sub/c.md"))
	if _, err := os.Lstat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an emptied real folder was kept: %v", err)
	}
}

// TestConfinement checks that writes and reads through the vault never leave the root, even
// through symlinks planted inside it.
func TestConfinement(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	secret := filepath.Join(outside, "s.md")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	must(t, os.Symlink(secret, filepath.Join(dir, "s.md")))
	must(t, os.Symlink("../../", filepath.Join(dir, "up")))
	if _, err := v.ReadFile("out/s.md"); err == nil {
		t.Error("read through a directory symlink leading out")
	}
	if _, err := v.ReadFile("s.md"); err == nil {
		t.Error("read through a file symlink leading out")
	}
	for _, p := range []string{"out/new.md", "up/new.md", "out/s.md"} {
		if err := v.Write(p, []byte("x"), false); err == nil {
			t.Errorf("write to %s succeeded", p)
		}
	}
	if err := v.Write("s.md", []byte("x"), false); !errors.Is(err, ErrSymlink) {
		t.Errorf("write over a symlink = %v", err)
	}
	if err := v.Write("s.md", []byte("x"), true); !errors.Is(err, ErrExists) {
		t.Errorf("exclusive write over a symlink = %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret" {
		t.Error("the outside file changed")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files appeared outside: %v", entries)
	}
	files, err := v.Walk("")
	if err != nil || len(files) != 0 {
		t.Errorf("walk followed symlinks: %v %v", files, err)
	}
	// an inside symlink still reads
	must(t, v.Write("real/n.md", []byte("inside"), true))
	must(t, os.Symlink("real", filepath.Join(dir, "alias")))
	if b, err := v.ReadFile("alias/n.md"); err != nil || string(b) != "inside" {
		t.Errorf("inside symlink: %q %v", b, err)
	}
}

func TestWriteExclusiveAndMove(t *testing.T) {
	t.Parallel()
	v, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	must(t, v.Write("a/b.md", []byte("one"), true))
	if err := v.Write("a/b.md", []byte("two"), true); !errors.Is(err, ErrExists) {
		t.Fatalf("exclusive = %v", err)
	}
	must(t, v.Write("a/b.md", []byte("two"), false))
	if b, _ := v.ReadFile("a/b.md"); string(b) != "two" {
		t.Errorf("content = %q", b)
	}
	must(t, v.Write("c.md", []byte("c"), true))
	if err := v.Move("a/b.md", "c.md"); !errors.Is(err, ErrExists) {
		t.Errorf("move onto existing = %v", err)
	}
	must(t, v.Move("a/b.md", "d/e/f.md"))
	if v.Exists("a") || !v.Exists("d/e/f.md") {
		t.Error("move did not prune or did not land")
	}
	entries, _ := os.ReadDir(filepath.Join(v.Dir(), "d", "e"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestParseRender(t *testing.T) {
	t.Parallel()
	src := "---\ntitle: \"A: title\"\ntags:\n  - One\n  - two\ncreated: 2024-01-02\nupdated: 2024-01-03T04:05:06Z\naliases: [x]\nnested:\n  k: v\n---\n\n# Body\n\ntext\n"
	n := Parse(src)
	if n.Title != "A: title" || !slices.Equal(n.Tags, []string{"one", "two"}) || n.Created.Year() != 2024 || n.Updated.Hour() != 4 {
		t.Errorf("parsed = %+v", n)
	}
	if !slices.Equal(n.Extra, []string{"aliases: [x]", "nested:", "  k: v"}) || n.Body != "# Body\n\ntext\n" {
		t.Errorf("extra/body = %q %q", n.Extra, n.Body)
	}
	back := Parse(n.Render())
	if back.Title != n.Title || !slices.Equal(back.Tags, n.Tags) || !back.Updated.Equal(n.Updated) || back.Body != n.Body || !slices.Equal(back.Extra, n.Extra) {
		t.Errorf("round trip = %+v", back)
	}
	for _, plain := range []string{"no front matter", "---\nnot closed", "---x\n---\n", ""} {
		if p := Parse(plain); p.Body != plain || p.Title != "" {
			t.Errorf("Parse(%q) = %+v", plain, p)
		}
	}
	if p := Parse("---\r\ntitle: 'it''s'\r\ntags: a, b c\r\n---\r\nbody"); p.Title != "it's" || !slices.Equal(p.Tags, []string{"a", "b", "c"}) || p.Body != "body" {
		t.Errorf("CRLF = %+v", p)
	}
}

func FuzzFrontMatter(f *testing.F) {
	f.Add("title", "tag", "body #x [[link]]")
	f.Add("a: b # c", "-x", "---\nfake\n---\n")
	f.Add("\"quoted\"", "'", "")
	f.Add("yes", "null", "\r\n")
	f.Fuzz(func(t *testing.T, title, tag, body string) {
		n := Note{Title: strings.TrimSpace(title), Tags: NormalizeTags([]string{tag}), Body: body, Updated: time.Unix(1700000000, 0)}
		if strings.ContainsAny(n.Title, "\r\n") || !validUTF8(n.Title+tag) {
			return
		}
		out := n.Render()
		back := Parse(out)
		if back.Title != n.Title {
			t.Fatalf("title %q came back as %q\n%s", n.Title, back.Title, out)
		}
		if !slices.Equal(back.Tags, n.Tags) && len(n.Tags)+len(back.Tags) > 0 {
			t.Fatalf("tags %q came back as %q\n%s", n.Tags, back.Tags, out)
		}
		wantBody := n.Body
		if wantBody != "" && !strings.HasSuffix(wantBody, "\n") {
			wantBody += "\n"
		}
		if back.Body != wantBody {
			t.Fatalf("body %q came back as %q", wantBody, back.Body)
		}
		// anything parses, and parsing what it renders is stable
		p := Parse(body)
		if again := Parse(p.Render()); again.Title != p.Title || !slices.Equal(again.Tags, p.Tags) {
			t.Fatalf("unstable: %+v vs %+v", p, again)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestMarkdown(t *testing.T) {
	t.Parallel()
	body := "# Top\n\n## A\n\na text #tag1\n\n```go\n# not a heading #nottag\n```\n\n### A.1\n\nsub\n\n## B\n\nb text [[Other Note|alias]] ![[img.png]] [[x#h]]\n"
	if hs := Outline(body); len(hs) != 4 || hs[2].Text != "A.1" || hs[2].Level != 3 {
		t.Errorf("outline = %+v", hs)
	}
	sec, ok := Section(body, "a")
	if !ok || !strings.Contains(sec, "A.1") || strings.Contains(sec, "## B") {
		t.Errorf("section = %q", sec)
	}
	if got, _ := ReplaceSection(body, "B", "new b"); !strings.HasSuffix(got, "## B\n\nnew b\n") {
		t.Errorf("replace last section = %q", got)
	}
	if tags := InlineTags(body); !slices.Equal(tags, []string{"tag1"}) {
		t.Errorf("tags = %v", tags)
	}
	if links := Links(body); !slices.Equal(links, []string{"Other Note", "img.png", "x"}) {
		t.Errorf("links = %v", links)
	}
	got, n := RewriteLinks(body, func(target string) (string, bool) { return "New", LinkKey(target) == "other note" })
	if n != 1 || !strings.Contains(got, "[[New|alias]]") {
		t.Errorf("rewrite = %d %q", n, got)
	}
	if got := RemoveInlineTag("x #Tag1 y #tag10", "tag1"); got != "x Tag1 y #tag10" {
		t.Errorf("remove inline = %q", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestWalkCountingReportsAsItGoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 2*walkReport + 500 {
		sub := filepath.Join(dir, fmt.Sprintf("f%d", i%7))
		must(t, os.MkdirAll(sub, 0o700))
		must(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("n%d.md", i)), []byte("x"), 0o600))
	}
	must(t, os.WriteFile(filepath.Join(dir, "not-a-note.txt"), []byte("x"), 0o600))
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var calls []int
	files, err := v.WalkCounting("", func(n int) { calls = append(calls, n) })
	if err != nil || len(files) != 2*walkReport+500 {
		t.Fatalf("walk = %d files, %v", len(files), err)
	}
	if want := []int{walkReport, 2 * walkReport}; !slices.Equal(calls, want) {
		t.Errorf("found called with %v, want %v", calls, want)
	}
}

func TestReadHead(t *testing.T) {
	t.Parallel()
	v, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, tc := range []struct {
		size, max int
		more      bool
	}{{0, 10, false}, {5, 10, false}, {10, 10, false}, {11, 10, true}, {5000, 100, true}} {
		rel := fmt.Sprintf("h%d-%d.md", tc.size, tc.max)
		content := strings.Repeat("a", tc.size)
		must(t, v.Write(rel, []byte(content), true))
		data, more, err := v.ReadHead(rel, tc.max)
		if want := content[:min(tc.size, tc.max)]; err != nil || string(data) != want || more != tc.more {
			t.Errorf("ReadHead(%d bytes, %d) = %d bytes, more %v, %v; want %d bytes, more %v", tc.size, tc.max, len(data), more, err, len(want), tc.more)
		}
	}
}
