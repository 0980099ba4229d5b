// Command modcheck fails when the workspace's modules drift apart: a go or toolchain directive
// that differs from go.work's, a dependency required at different versions by two modules, a
// go.mod or go.sum that `go work sync` would change, or a module that `go mod tidy` would change.
// It runs from the workspace root (make lint runs it). `go work sync` runs on the files in place
// and every file it may touch is put back as it was, whatever happens.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

func main() {
	root := flag.String("root", ".", "the workspace root, where go.work is")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	problems, err := run(ctx, *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "modcheck:", err)
		os.Exit(1)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "modcheck:", p)
		}
		os.Exit(1)
	}
}

// workFile is the part of `go work edit -json` read here.
type workFile struct {
	Go        string
	Toolchain string
	Use       []struct{ DiskPath string }
}

// modFile is the part of `go mod edit -json` read here, with the module's directory.
type modFile struct {
	Dir       string // relative to the root, e.g. servers/drive
	Module    struct{ Path string }
	Go        string
	Toolchain string
	Require   []struct{ Path, Version string }
}

func run(ctx context.Context, root string) ([]string, error) {
	var work workFile
	if err := goJSON(ctx, root, &work, "work", "edit", "-json"); err != nil {
		return nil, fmt.Errorf("reading go.work in %s (run from the workspace root or give -root): %w", root, err)
	}
	var mods []modFile
	for _, u := range work.Use {
		m := modFile{Dir: filepath.Clean(u.DiskPath)}
		if err := goJSON(ctx, filepath.Join(root, m.Dir), &m, "mod", "edit", "-json"); err != nil {
			return nil, fmt.Errorf("reading %s: %w", filepath.Join(m.Dir, "go.mod"), err)
		}
		mods = append(mods, m)
	}
	problems := compare(work, mods)
	changed, err := syncChanges(ctx, root, mods)
	if err != nil {
		return nil, err
	}
	for _, f := range changed {
		problems = append(problems, fmt.Sprintf("%s: `go work sync` changes it: run go work sync and commit the result", f))
	}
	for _, m := range mods {
		diff, err := tidyDiff(ctx, filepath.Join(root, m.Dir))
		if err != nil {
			return nil, fmt.Errorf("%s: go mod tidy -diff: %w", m.Dir, err)
		}
		if diff != "" {
			problems = append(problems, fmt.Sprintf("%s: not tidy: run go mod tidy there\n%s", m.Dir, diff))
		}
	}
	return problems, nil
}

// compare finds the directives and requirements on which the modules disagree.
func compare(work workFile, mods []modFile) []string {
	var problems []string
	if work.Go == "" {
		problems = append(problems, "go.work: no go directive: add one with go work edit -go=VERSION")
	}
	local := map[string]bool{}
	for _, m := range mods {
		local[m.Module.Path] = true
	}
	versions := map[string]map[string][]string{} // path -> version -> module dirs
	for _, m := range mods {
		if m.Go != work.Go {
			problems = append(problems, fmt.Sprintf("%s/go.mod: go %s, but go.work has go %s: run go mod edit -go=%s there", m.Dir, orNone(m.Go), orNone(work.Go), work.Go))
		}
		if m.Toolchain != work.Toolchain {
			problems = append(problems, fmt.Sprintf("%s/go.mod: toolchain %s, but go.work has toolchain %s: make them the same", m.Dir, orNone(m.Toolchain), orNone(work.Toolchain)))
		}
		for _, r := range m.Require {
			if local[r.Path] {
				continue // a workspace module, replaced by its directory
			}
			if versions[r.Path] == nil {
				versions[r.Path] = map[string][]string{}
			}
			versions[r.Path][r.Version] = append(versions[r.Path][r.Version], m.Dir)
		}
	}
	paths := make([]string, 0, len(versions))
	for p, vs := range versions {
		if len(vs) > 1 {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		var parts []string
		for v, dirs := range versions[p] {
			parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(dirs, ", ")))
		}
		sort.Strings(parts)
		problems = append(problems, fmt.Sprintf("%s is required at %s: run go work sync, or go get the same version in each", p, strings.Join(parts, " and ")))
	}
	return problems
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// syncChanges runs `go work sync` and returns the go.mod and go.sum files it changed, relative to
// root. Every file it may write is restored to what it held before, also when it fails.
func syncChanges(ctx context.Context, root string, mods []modFile) (changed []string, err error) {
	files := []string{"go.work", "go.work.sum"}
	for _, m := range mods {
		files = append(files, filepath.Join(m.Dir, "go.mod"), filepath.Join(m.Dir, "go.sum"))
	}
	saved := map[string][]byte{} // nil: the file did not exist
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		saved[f] = data
	}
	defer func() {
		for _, f := range files {
			if rerr := restore(filepath.Join(root, f), saved[f]); rerr != nil {
				err = errors.Join(err, fmt.Errorf("putting %s back after go work sync failed: %w; restore it with git checkout", f, rerr))
			}
		}
	}()
	cmd := exec.CommandContext(ctx, "go", "work", "sync")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go work sync: %w\n%s", err, out)
	}
	for _, f := range files {
		if f == "go.work" || f == "go.work.sum" {
			continue // the workspace's own files are not published with the modules
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if !bytes.Equal(data, saved[f]) || (data == nil) != (saved[f] == nil) {
			changed = append(changed, f)
		}
	}
	return changed, nil
}

// restore puts back a file's saved content; nil removes a file that did not exist.
func restore(path string, data []byte) error {
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	current, err := os.ReadFile(path)
	if err == nil && bytes.Equal(current, data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}

// tidyDiff is what `go mod tidy` would change in the module at dir, as a diff; "" when tidy.
func tidyDiff(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy", "-diff")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "", nil
	case errors.As(err, &ee) && ee.ExitCode() == 1 && stdout.Len() > 0:
		return stdout.String(), nil
	}
	return "", fmt.Errorf("%w\n%s", err, stderr.String())
}

// goJSON runs a go command in dir and decodes its JSON output into v.
func goJSON(ctx context.Context, dir string, v any, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return json.Unmarshal(out, v)
}
