package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestEditFile(t *testing.T) {
	_, cs, work := start(t)
	file := filepath.Join(work, "app.conf")
	original := "name=app\nport=80\nhost=a\nhost=b\nend\n"
	tests := []struct {
		name    string
		args    map[string]any
		want    string // file content afterwards
		wantErr string
		diff    []string // lines the diff must hold
	}{
		{
			name: "single edit",
			args: map[string]any{"edits": []map[string]any{{"old_text": "port=80", "new_text": "port=8080"}}},
			want: "name=app\nport=8080\nhost=a\nhost=b\nend\n",
			diff: []string{"@@ -1,5 +1,5 @@", "-port=80\n", "+port=8080\n", " name=app\n"},
		},
		{
			name: "edits in order, each on the result of the one before",
			args: map[string]any{"edits": []map[string]any{
				{"old_text": "host=", "new_text": "server=", "expected_count": 2},
				{"old_text": "server=a\n", "new_text": ""},
			}},
			want: "name=app\nport=80\nserver=b\nend\n",
			diff: []string{"-host=a\n", "-host=b\n", "+server=b\n"},
		},
		{
			name:    "ambiguous match",
			args:    map[string]any{"edits": []map[string]any{{"old_text": "host=", "new_text": "x"}}},
			wantErr: "edit 1: old_text occurs 2 times",
		},
		{
			name: "a later edit failing writes nothing",
			args: map[string]any{"edits": []map[string]any{
				{"old_text": "port=80", "new_text": "port=1"},
				{"old_text": "missing", "new_text": "x"},
			}},
			wantErr: "edit 2: old_text occurs 0 times",
		},
		{
			name:    "wrong expected_count",
			args:    map[string]any{"edits": []map[string]any{{"old_text": "host=", "new_text": "x", "expected_count": 3}}},
			wantErr: "occurs 2 times in app.conf (after the edits before it), expected 3",
		},
		{
			name:    "stale hash",
			args:    map[string]any{"expected_sha256": strings.Repeat("0", 64), "edits": []map[string]any{{"old_text": "port=80", "new_text": "x"}}},
			wantErr: "changed since it was read",
		},
		{
			name: "dry run",
			args: map[string]any{"dry_run": true, "edits": []map[string]any{{"old_text": "end\n", "new_text": "end"}}},
			diff: []string{"-end\n", "+end\n\\ No newline at end of file\n"},
		},
		{
			name:    "empty old_text",
			args:    map[string]any{"edits": []map[string]any{{"old_text": "", "new_text": "x"}}},
			wantErr: "old_text",
		},
		{
			name:    "no edits",
			args:    map[string]any{"edits": []map[string]any{}},
			wantErr: "edits",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(file, []byte(original), 0o640); err != nil {
				t.Fatal(err)
			}
			tt.args["path"] = "app.conf"
			res := mcptest.Call(t, cs, "edit_file", tt.args)
			got, _ := os.ReadFile(file)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(mcptest.Text(res), tt.wantErr) {
					t.Fatalf("got %q, want an error with %q", mcptest.Text(res), tt.wantErr)
				}
				if string(got) != original {
					t.Errorf("file changed on error: %q", got)
				}
				return
			}
			var out editFileOutput
			mcptest.Decode(t, res, &out)
			want := tt.want
			if want == "" {
				want = original
			}
			if string(got) != want {
				t.Errorf("content %q, want %q", got, want)
			}
			if out.Written != (tt.want != "") {
				t.Errorf("written %v", out.Written)
			}
			for _, d := range tt.diff {
				if !strings.Contains(out.Diff, d) {
					t.Errorf("diff lacks %q:\n%s", d, out.Diff)
				}
			}
			info, err := os.Stat(file)
			if err != nil || info.Mode().Perm() != 0o640 {
				t.Errorf("mode after edit: %v %v", info.Mode(), err)
			}
		})
	}
}

func TestEditFileHashAndConfinement(t *testing.T) {
	_, cs, work := start(t)
	if err := os.WriteFile(filepath.Join(work, "f.txt"), []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var r readTextFileOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "read_text_file", map[string]any{"path": "f.txt"}), &r)
	var out editFileOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "edit_file", map[string]any{"path": "f.txt", "expected_sha256": r.SHA256, "edits": []map[string]any{{"old_text": "two", "new_text": "2"}}}), &out)
	mcptest.Decode(t, mcptest.Call(t, cs, "read_text_file", map[string]any{"path": "f.txt"}), &r)
	if r.Content != "one\n2\n" || r.SHA256 != out.SHA256 {
		t.Errorf("after edit %q sha %s, edit said %s", r.Content, r.SHA256, out.SHA256)
	}
	if err := os.Symlink("/etc", filepath.Join(work, "etc-link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/etc/hostname", "etc-link/hostname", "../../../etc/hostname"} {
		res := mcptest.Call(t, cs, "edit_file", map[string]any{"path": p, "edits": []map[string]any{{"old_text": "a", "new_text": "b"}}})
		if !res.IsError {
			t.Errorf("%s: edited outside the roots", p)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"x\n", "x\n", ""},
		{"a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "new\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+new\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n5\n6\n7\n8\n", "--- a/f\n+++ b/f\n@@ -6,4 +6,3 @@\n 6\n 7\n 8\n-9\n"},
	}
	for _, tt := range tests {
		if got, _ := unifiedDiff("f", tt.a, tt.b, 1<<10); got != tt.want {
			t.Errorf("diff(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
	big := strings.Repeat("line\n", 1000)
	got, cut := unifiedDiff("f", big, "", 100)
	if !cut || len(got) > 100 || !strings.HasSuffix(got, "\n") {
		t.Errorf("cap: %d bytes, truncated %v", len(got), cut)
	}
}
