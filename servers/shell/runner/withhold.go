package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"
)

// maxWithheldRules bounds the rules withholding the cgroup hierarchies may take.
const maxWithheldRules = 1024

// cgroupMounts lists the mount points of every cgroup hierarchy, v1 and v2, from
// /proc/self/mountinfo.
func cgroupMounts() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 1 || tail[0] != "cgroup2" && tail[0] != "cgroup" {
			continue
		}
		out = append(out, unescapeMount(fields[4]))
	}
	return out, sc.Err()
}

// withhold returns paths that grant, beneath them, what paths grant except the withheld
// paths and everything below them: a path inside a withheld one is dropped, and a path holding
// one is replaced by its entries, recursively, leaving the withheld one out. Symbolic links
// among the entries are left out too (a rule on one would follow it). Landlock rules only
// grant, so this is how a right is withheld below a path that is granted.
func withhold(paths, withheld []string) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		holds := false
		for _, w := range withheld {
			if within(dir, w) {
				return nil
			}
			holds = holds || within(w, dir)
		}
		if !holds {
			out = append(out, dir)
			if len(out) > maxWithheldRules {
				return fmt.Errorf("withholding %s takes more than %d rules", strings.Join(withheld, ", "), maxWithheldRules)
			}
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			if err := walk(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range paths {
		if err := walk(filepath.Clean(p)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// WithholdCgroups makes commands start through the sandbox helper of the server binary self
// with every write right except on the cgroup hierarchies, so that no command can make a
// cgroup or move a process out of its own: the kernel refuses it (Landlock), whatever user the
// server runs as. It is for when no other sandbox is set (Sandbox withholds them from its
// rules too); it does nothing outside cgroup containment, and fails when the kernel has no
// Landlock.
func (r *Runner) WithholdCgroups(ctx context.Context, self string) error {
	if r.cg == nil || r.prefix != nil {
		return nil
	}
	if err := sandbox.Available(); err != nil {
		return err
	}
	return r.Sandbox(ctx, self, sandbox.Rules{Write: []string{"/"}})
}

// CgroupsWithheld reports whether commands are kept by the kernel from writing to the cgroup
// hierarchies (Sandbox or WithholdCgroups in cgroup containment).
func (r *Runner) CgroupsWithheld() bool { return r.cg != nil && r.prefix != nil }
