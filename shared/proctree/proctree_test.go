package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// statLine builds a stat line for a process named comm with the given state, parent,
// process group and start time; the other fields are zeros.
func statLine(pid int, comm string, state byte, ppid, pgid int, start uint64) string {
	f := make([]string, 52-2)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2], f[19] = string(state), strconv.Itoa(ppid), strconv.Itoa(pgid), strconv.FormatUint(start, 10)
	return strconv.Itoa(pid) + " (" + comm + ") " + strings.Join(f, " ") + "\n"
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    Stat
		wantErr string
	}{
		{"plain", statLine(7, "bash", 'S', 1, 7, 1234), Stat{State: 'S', PPID: 1, PGID: 7, Start: 1234}, ""},
		{"comm with spaces", statLine(8, "Web Content", 'R', 7, 7, 99), Stat{State: 'R', PPID: 7, PGID: 7, Start: 99}, ""},
		{"comm with parentheses", statLine(9, "a) Z 1 1 (b", 'Z', 8, 3, 5), Stat{State: 'Z', PPID: 8, PGID: 3, Start: 5}, ""},
		{"comm that looks like fields", statLine(10, ") S 1 1 1 1", 'X', 2, 2, 6), Stat{State: 'X', PPID: 2, PGID: 2, Start: 6}, ""},
		{"no parentheses", "10 bash S 1 1 1", Stat{}, "no command name"},
		{"truncated", "10 (bash) S 1 1 1 0", Stat{}, "want at least 20"},
		{"empty", "", Stat{}, "no command name"},
		{"bad ppid", strings.Replace(statLine(1, "x", 'S', 1, 1, 1), ") S 1 ", ") S one ", 1), Stat{}, "ppid"},
		{"bad start", strings.Replace(statLine(1, "x", 'S', 1, 1, 12345), " 12345 ", " -1 ", 1), Stat{}, "starttime"},
		{"long state", strings.Replace(statLine(1, "x", 'S', 1, 1, 1), ") S ", ") SS ", 1), Stat{}, "state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseStat(%q) = %+v, %v; want an error with %q", tt.line, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseStat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			}
		})
	}
}

func TestDead(t *testing.T) {
	for state, want := range map[byte]bool{'R': false, 'S': false, 'D': false, 'T': false, 'Z': true, 'X': true} {
		if got := (Stat{State: state}).Dead(); got != want {
			t.Errorf("state %c: Dead() = %v, want %v", state, got, want)
		}
	}
}

// fakeProc writes a proc tree under a temp dir: parents maps each pid to its parent. With
// childrenFiles, each process gets task/PID/children, its children split over two tasks when
// it has more than one, as threads of a process each list the children they forked.
func fakeProc(t *testing.T, parents map[int]int, childrenFiles bool) string {
	t.Helper()
	dir := t.TempDir()
	kids := map[int][]int{}
	for pid, ppid := range parents {
		kids[ppid] = append(kids[ppid], pid)
	}
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for pid, ppid := range parents {
		p := filepath.Join(dir, strconv.Itoa(pid))
		write(filepath.Join(p, "stat"), statLine(pid, "proc ) "+strconv.Itoa(pid), 'S', ppid, pid, uint64(pid)*10))
		if !childrenFiles {
			continue
		}
		k := kids[pid]
		slices.Sort(k)
		half := (len(k) + 1) / 2
		join := func(s []int) string {
			var b strings.Builder
			for _, c := range s {
				b.WriteString(strconv.Itoa(c) + " ")
			}
			return b.String()
		}
		write(filepath.Join(p, "task", strconv.Itoa(pid), "children"), join(k[:half]))
		if len(k) > 1 {
			write(filepath.Join(p, "task", strconv.Itoa(pid+100000), "children"), join(k[half:]))
		}
	}
	write(filepath.Join(dir, "self"), "not a process")      // a non-numeric entry is skipped
	write(filepath.Join(dir, "999", "stat"), "999 garbage") // an unreadable stat is skipped
	return dir
}

// tree is 1 -> 10 -> {11, 12}, 11 -> {13}, 13 -> {14}, and 1 -> 20 -> 21.
var tree = map[int]int{1: 0, 10: 1, 11: 10, 12: 10, 13: 11, 14: 13, 20: 1, 21: 20}

func TestFakeTree(t *testing.T) {
	for _, files := range []bool{true, false} {
		tr := Tree{Root: fakeProc(t, tree, files)}
		if got := tr.HasChildrenFiles(10); got != files {
			t.Errorf("children files %v: HasChildrenFiles = %v", files, got)
		}
		children := []struct {
			pid  int
			want []int
		}{{10, []int{11, 12}}, {11, []int{13}}, {14, nil}, {1, []int{10, 20}}, {12345, nil}}
		for _, c := range children {
			ways := map[string][]int{"scan": tr.ScanChildren(c.pid)}
			if files {
				ways["task files"] = tr.TaskChildren(c.pid)
			} else if got := tr.TaskChildren(c.pid); got != nil {
				t.Errorf("TaskChildren(%d) without children files = %v", c.pid, got)
			}
			for way, got := range ways {
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("files %v, %s: children of %d = %v, want %v", files, way, c.pid, got, c.want)
				}
			}
		}
		descendants := []struct {
			pid, limit int
			want       []int
		}{
			{10, 100, []int{11, 12, 13, 14}},
			{1, 100, []int{10, 20, 11, 12, 21, 13, 14}},
			{10, 2, []int{11, 12}},
			{10, 3, []int{11, 12, 13}},
			{10, 0, nil},
			{14, 100, nil},
			{12345, 100, nil},
		}
		for _, d := range descendants {
			got := tr.Descendants(d.pid, d.limit)
			// Nearest first: siblings may come in any order, generations may not.
			if !sameGenerations(got, d.want) {
				t.Errorf("files %v: Descendants(%d, %d) = %v, want %v", files, d.pid, d.limit, got, d.want)
			}
		}
		s, err := tr.Stat(13)
		if want := (Stat{PID: 13, PPID: 11, PGID: 13, State: 'S', Start: 130}); err != nil || s != want {
			t.Errorf("Stat(13) = %+v, %v; want %+v", s, err, want)
		}
		if _, err := tr.Stat(999); err == nil || !strings.Contains(err.Error(), "999/stat") {
			t.Errorf("Stat(999) of a garbage stat: err %v, want one naming the file", err)
		}
		procs, err := tr.Procs()
		if err != nil || len(procs) != len(tree) {
			t.Errorf("Procs() = %d processes, %v; want %d", len(procs), err, len(tree))
		}
	}
	if _, err := (Tree{Root: filepath.Join(t.TempDir(), "absent")}).Procs(); err == nil {
		t.Error("Procs() of a missing proc filesystem succeeded")
	}
}

// sameGenerations reports whether got holds want's pids with each generation's members in
// the same place, in any order within it. The generations here are 1-2 wide and want is
// written one generation after another, so comparing sorted windows of the tree's levels works.
func sameGenerations(got, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	depth := func(pid int) int {
		d := 0
		for p := pid; p != 0; p = tree[p] {
			d++
		}
		return d
	}
	for i := range got {
		if depth(got[i]) != depth(want[i]) {
			return false
		}
	}
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestRealProc(t *testing.T) {
	// sh starts sleep as its child, so the test process has a child and a grandchild.
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	self, child := os.Getpid(), cmd.Process.Pid
	var tr Tree
	var grandchild int
	for range 200 {
		if kids := tr.ScanChildren(child); len(kids) > 0 {
			grandchild = kids[0]
			break
		}
		if err := exec.Command("sleep", "0.01").Run(); err != nil {
			t.Fatal(err)
		}
	}
	if grandchild == 0 {
		t.Fatal("sh never started sleep")
	}
	t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })

	s, err := tr.Stat(child)
	if err != nil || s.PID != child || s.PPID != self || s.Dead() || s.Start == 0 {
		t.Fatalf("Stat(%d) = %+v, %v; want a live child of %d", child, s, err, self)
	}
	ways := map[string]func(int) []int{"scan": tr.ScanChildren}
	if tr.HasChildrenFiles(self) {
		ways["task files"] = tr.TaskChildren
	}
	for way, list := range ways {
		if got := list(self); !slices.Contains(got, child) {
			t.Errorf("%s: children of %d = %v, want %d among them", way, self, got, child)
		}
		if got := list(child); !slices.Equal(got, []int{grandchild}) {
			t.Errorf("%s: children of %d = %v, want [%d]", way, child, got, grandchild)
		}
	}
	d := tr.Descendants(self, 4096)
	ic, ig := slices.Index(d, child), slices.Index(d, grandchild)
	if ic < 0 || ig < 0 || ic > ig {
		t.Errorf("Descendants(%d) = %v, want %d before %d", self, d, child, grandchild)
	}
	if _, err := tr.Stat(-1); err == nil {
		t.Error("Stat(-1) succeeded")
	}
}
