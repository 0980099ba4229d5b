package switches

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	long := make([]string, maxEntries+1)
	for i := range long {
		long[i] = "t" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
	}
	for _, tc := range []struct {
		name string
		s    State
		want string // "" for valid
	}{
		{"zero of this format", State{Format: Format}, ""},
		{"everything", State{Format: Format, Version: 7, Server: true, ReadOnly: true, Toolsets: []string{"send", "drafts"}, Tools: []string{"send_message"}, By: "owner"}, ""},
		{"no format", State{}, "switches format 0: this server reads format 1 only"},
		{"a newer format", State{Format: 2}, "switches format 2"},
		{"negative version", State{Format: Format, Version: -1}, "version -1"},
		{"a toolset that is no name", State{Format: Format, Toolsets: []string{"Send"}}, `toolsets_off entry "Send" is not a name`},
		{"a tool with a space", State{Format: Format, Tools: []string{"send message"}}, `tools_off entry "send message" is not a name`},
		{"names at their longest", State{Format: Format, Toolsets: []string{"a" + strings.Repeat("b_9", 10) + "c"}, Tools: []string{strings.Repeat("A.z-_9", 21) + "xy"}}, ""},
		{"a tool name too long", State{Format: Format, Tools: []string{strings.Repeat("x", 129)}}, "is not a name"},
		{"an empty tool name", State{Format: Format, Tools: []string{""}}, "is not a name"},
		{"a toolset name too long", State{Format: Format, Toolsets: []string{strings.Repeat("x", 33)}}, "is not a name"},
		{"a toolset starting with a digit", State{Format: Format, Toolsets: []string{"9x"}}, "is not a name"},
		{"a toolset with a dot", State{Format: Format, Toolsets: []string{"a.b"}}, "is not a name"},
		{"a tool with a non-ASCII letter", State{Format: Format, Tools: []string{"sénd"}}, "is not a name"},
		{"twice", State{Format: Format, Tools: []string{"a", "a"}}, `tools_off names "a" twice`},
		{"too many", State{Format: Format, Tools: long}, "at most 512"},
		{"a long by", State{Format: Format, By: strings.Repeat("x", 201)}, "by is longer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOff(t *testing.T) {
	t.Parallel()
	s := State{Format: Format, Toolsets: []string{"send"}, Tools: []string{"delete_label"}}
	ro := s
	ro.ReadOnly = true
	all := State{Format: Format, Server: true}
	for _, tc := range []struct {
		s             State
		tool, toolset string
		readOnly      bool
		want          string
	}{
		{s, "search_messages", "read", true, ""},
		{s, "send_message", "send", false, "toolset"},
		{s, "delete_label", "labels", false, "tool"},
		{s, "create_label", "labels", false, ""},
		{ro, "create_label", "labels", false, "read-only"},
		{ro, "search_messages", "read", true, ""},
		{ro, "delete_label", "labels", false, "tool"},
		{all, "search_messages", "read", true, "server"},
		{State{Format: Format, Toolsets: []string{"read"}}, "x", "", true, ""}, // no toolset: only tool switches reach it
	} {
		if got := tc.s.Off(tc.tool, tc.toolset, tc.readOnly); got != tc.want {
			t.Errorf("%+v Off(%s, %s, %v) = %q, want %q", tc.s, tc.tool, tc.toolset, tc.readOnly, got, tc.want)
		}
	}
	if !(State{Format: Format, Version: 3}).IsZero() || s.IsZero() || ro.IsZero() || all.IsZero() {
		t.Error("IsZero")
	}
}

func TestReadWrite(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state") // made by Write
	path := filepath.Join(dir, File)
	if st, err := Read(path); !errors.Is(err, fs.ErrNotExist) || !st.IsZero() || st.Format != Format {
		t.Fatalf("a missing file: %+v %v", st, err)
	}
	if StampOf(path) != (Stamp{}) {
		t.Error("a missing file has a stamp")
	}
	want := State{Format: Format, Version: 4, ReadOnly: true, Tools: []string{"send_message"}, Changed: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), By: "passkey abc"}
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil || got.Version != 4 || !got.ReadOnly || len(got.Tools) != 1 || got.Tools[0] != "send_message" || !got.Changed.Equal(want.Changed) || got.By != "passkey abc" {
		t.Fatalf("read back %+v %v", got, err)
	}
	for p, mode := range map[string]os.FileMode{dir: 0o700 | fs.ModeDir, path: 0o600} {
		if info, err := os.Stat(p); err != nil || info.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", p, info.Mode(), err, mode)
		}
	}
	first := StampOf(path)
	want.Version = 5
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	if StampOf(path) == first {
		t.Error("the stamp did not change with the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	// Write refuses what Validate refuses, and leaves the file as it was.
	if err := Write(path, State{Format: 9}); err == nil {
		t.Error("wrote format 9")
	}
	if got, _ := Read(path); got.Version != 5 {
		t.Errorf("after a refused write: %+v", got)
	}
	for name, body := range map[string]string{
		"not JSON":       "{",
		"a newer format": `{"format": 2, "version": 1}`,
		"a bad entry":    `{"format": 1, "tools_off": ["a b"]}`,
	} {
		bad := filepath.Join(t.TempDir(), File)
		if err := os.WriteFile(bad, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(bad); err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: read without an error: %v", name, err)
		}
	}
}
