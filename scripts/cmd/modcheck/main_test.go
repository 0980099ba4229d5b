package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mod(dir, path, goVersion string, reqs ...string) modFile {
	m := modFile{Dir: dir, Go: goVersion}
	m.Module.Path = path
	for _, r := range reqs {
		p, v, _ := strings.Cut(r, "@")
		m.Require = append(m.Require, struct{ Path, Version string }{p, v})
	}
	return m
}

func TestCompare(t *testing.T) {
	work := workFile{Go: "1.26.0"}
	tests := []struct {
		name string
		work workFile
		mods []modFile
		want []string // one part of each problem, in order
	}{
		{"aligned", work, []modFile{
			mod("shared", "x/shared", "1.26.0", "golang.org/x/sys@v0.49.0"),
			mod("servers/a", "x/a", "1.26.0", "x/shared@v0.0.0", "golang.org/x/sys@v0.49.0"),
		}, nil},
		{"go directive differs", work, []modFile{
			mod("shared", "x/shared", "1.26.0"),
			mod("servers/a", "x/a", "1.25.0"),
		}, []string{"servers/a/go.mod: go 1.25.0, but go.work has go 1.26.0"}},
		{"toolchain differs", work, []modFile{
			{Dir: "servers/a", Go: "1.26.0", Toolchain: "go1.26.8"},
		}, []string{"servers/a/go.mod: toolchain go1.26.8, but go.work has toolchain (none)"}},
		{"no go directive in go.work", workFile{}, []modFile{mod("servers/a", "x/a", "1.26.0")},
			[]string{"go.work: no go directive", "servers/a/go.mod: go 1.26.0, but go.work has go (none)"}},
		{"dependency at two versions", work, []modFile{
			mod("shared", "x/shared", "1.26.0", "golang.org/x/sys@v0.47.0"),
			mod("servers/a", "x/a", "1.26.0", "golang.org/x/sys@v0.49.0", "golang.org/x/net@v0.62.0"),
			mod("servers/b", "x/b", "1.26.0", "golang.org/x/sys@v0.49.0", "golang.org/x/net@v0.62.0"),
		}, []string{"golang.org/x/sys is required at v0.47.0 (shared) and v0.49.0 (servers/a, servers/b)"}},
		{"workspace modules are not compared", work, []modFile{
			mod("shared", "x/shared", "1.26.0"),
			mod("servers/a", "x/a", "1.26.0", "x/shared@v0.0.0"),
			mod("servers/b", "x/b", "1.26.0", "x/shared@v0.0.0-00010101000000-000000000000"),
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compare(tt.work, tt.mods)
			if len(got) != len(tt.want) {
				t.Fatalf("compare = %q, want %d problems", got, len(tt.want))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("problem %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// workspace writes a workspace under a temporary root: go.work using a and b, and a module
// example.com/dep (outside the workspace, replaced by its directory) that a and b require at
// the given versions; a imports it only when aImports.
func workspace(t *testing.T, aVersion, bVersion string, aImports bool) string {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.work", "go 1.26.0\n\nuse (\n\t./a\n\t./b\n)\n\nreplace example.com/dep => ./dep\n")
	write("dep/go.mod", "module example.com/dep\n\ngo 1.26.0\n")
	write("dep/dep.go", "package dep\n\nconst X = 1\n")
	for _, m := range []struct {
		name, version string
		imports       bool
	}{{"a", aVersion, aImports}, {"b", bVersion, true}} {
		write(m.name+"/go.mod", "module example.com/"+m.name+"\n\ngo 1.26.0\n\nrequire example.com/dep "+m.version+"\n\nreplace example.com/dep => ../dep\n")
		src := "package " + m.name + "\n"
		if m.imports {
			src += "\nimport \"example.com/dep\"\n\nconst Y = dep.X\n"
		}
		write(m.name+"/"+m.name+".go", src)
	}
	return root
}

func TestRunOnWorkspaces(t *testing.T) {
	tests := []struct {
		name     string
		root     func(t *testing.T) string
		problems []string // one part of each, in order
	}{
		{"clean", func(t *testing.T) string { return workspace(t, "v1.1.0", "v1.1.0", true) }, nil},
		{"versions differ: sync would change a", func(t *testing.T) string { return workspace(t, "v1.0.0", "v1.1.0", true) },
			[]string{"example.com/dep is required at v1.0.0 (a) and v1.1.0 (b)", "a/go.mod: `go work sync` changes it"}},
		{"a requires what it does not import: not tidy", func(t *testing.T) string { return workspace(t, "v1.1.0", "v1.1.0", false) },
			[]string{"a: not tidy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.root(t)
			before := map[string][]byte{}
			for _, f := range []string{"go.work", "a/go.mod", "b/go.mod"} {
				before[f], _ = os.ReadFile(filepath.Join(root, f))
			}
			got, err := run(t.Context(), root)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.problems) {
				t.Fatalf("problems %q, want %d", got, len(tt.problems))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.problems[i]) {
					t.Errorf("problem %d = %q, want %q", i, got[i], tt.problems[i])
				}
			}
			for f, data := range before {
				after, _ := os.ReadFile(filepath.Join(root, f))
				if string(after) != string(data) {
					t.Errorf("%s changed by the check:\n%s", f, after)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "a", "go.sum")); err == nil {
				t.Error("a/go.sum left behind by go work sync")
			}
		})
	}
	if _, err := run(t.Context(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "reading go.work") {
		t.Errorf("no go.work: %v", err)
	}
}
