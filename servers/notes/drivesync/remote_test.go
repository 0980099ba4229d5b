package drivesync

import (
	"errors"
	"testing"

	"github.com/jck411/mcp-servers/servers/notes/drivesync/drivetest"
)

func newRemote(t *testing.T, fake *drivetest.Fake) *Remote {
	t.Helper()
	return NewRemote(fake.API(t))
}

func TestRemoteRootAndList(t *testing.T) {
	t.Parallel()
	fake := drivetest.New(t)
	r := newRemote(t, fake)
	ctx := t.Context()
	root, err := r.Root(ctx, "Bob's notes")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := r.Root(ctx, "Bob's notes"); err != nil || again != root {
		t.Fatalf("second Root = %q, %v; want the same folder %q", again, err, root)
	}
	if other, _ := r.Root(ctx, "Work"); other == root {
		t.Fatal("a folder of another name was taken for the notes folder")
	}
	fake.Put(root, "a.md", "A")
	fake.Put(root, "deep/er/b.md", "B")
	fake.Put(root, "deep/photo.png", "PNG")
	fake.Put(root, ".hidden.md", "H")
	gone := fake.Put(root, "moved-out/c.md", "C")
	file, _, _ := fake.File(gone)
	fake.Delete(file.Parents[0]) // its folder left the tree
	tree, err := r.List(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for id, f := range tree.Files {
		paths[f.Path] = id
		if f.Path != "" && f.MD5 != Sum([]byte(map[string]string{"a.md": "A", "deep/er/b.md": "B"}[f.Path])) {
			t.Errorf("%s md5 = %s", f.Path, f.MD5)
		}
	}
	if len(paths) != 3 || paths["a.md"] == "" || paths["deep/er/b.md"] == "" || paths[""] == "" || tree.Skipped != 2 {
		t.Errorf("listing = %v, skipped %d; want a.md, deep/er/b.md and two skipped", paths, tree.Skipped)
	}
	if tree.Folders["deep/er"] == "" || tree.Folders[""] != root {
		t.Errorf("folders = %v", tree.Folders)
	}

	// Create reuses listed folders and makes missing ones; Move goes across folders.
	id, err := r.Create(ctx, tree, "deep/er/new.md", []byte("N"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Move(ctx, tree, id, "other/renamed.md"); err != nil {
		t.Fatal(err)
	}
	notes := fake.Notes(root)
	if notes["other/renamed.md"] != "N" || notes["deep/er/new.md"] != "" {
		t.Errorf("after create and move, Drive = %v", notes)
	}
	if err := r.Trash(ctx, id); err != nil {
		t.Fatal(err)
	}
	if data, err := r.Download(ctx, paths["a.md"]); err != nil || string(data) != "A" {
		t.Errorf("download = %q, %v", data, err)
	}
	if err := r.CheckRoot(ctx, root); err != nil {
		t.Errorf("CheckRoot = %v", err)
	}
	fake.Trash(root)
	if err := r.CheckRoot(ctx, root); !errors.Is(err, ErrRootGone) {
		t.Errorf("CheckRoot of a trashed folder = %v", err)
	}
}

func TestRemoteChanged(t *testing.T) {
	t.Parallel()
	fake := drivetest.New(t)
	r := newRemote(t, fake)
	ctx := t.Context()
	root, err := r.Root(ctx, "Notes")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := r.Root(ctx, "Other")
	token, err := r.StartToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fake.Put(other, "x.md", "not ours")
	n, next, err := r.Changed(ctx, token, root)
	if err != nil || n != 0 || next == token {
		t.Fatalf("after a change elsewhere: %d changes, token %q → %q, %v", n, token, next, err)
	}
	id := fake.Put(root, "a.md", "A")
	fake.Delete(id)
	if n, _, err := r.Changed(ctx, next, root); err != nil || n != 2 {
		t.Errorf("after a put and a delete in the folder: %d changes, %v; want 2", n, err)
	}
	if n, _, err := r.Changed(ctx, "bogus", root); err != nil || n != 1 {
		t.Errorf("with an expired token: %d, %v; want 1 (list again)", n, err)
	}
}
