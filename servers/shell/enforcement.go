package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
)

// maxWriteGuardRules bounds the Landlock rules the write guard may need to leave the protected
// paths out of the temporary and home directories.
const maxWriteGuardRules = 4096

// enforcement is how the kernel confines commands, as set up at start.
type enforcement struct {
	mode   string // "landlock-confined", "landlock-write-guard", "landlock-cgroup-guard" or "none"
	note   string // why there is none
	path   string // the PATH commands get; "" keeps the server's
	tmpDir string // the private temporary directory of confined commands
	base   string // the directory holding tmpDir and the PATH links, removed on close
}

// close removes the private directories.
func (e *enforcement) close() {
	if e.base != "" {
		_ = os.RemoveAll(e.base)
	}
}

// enforcementInput is what the enforcement is built from.
type enforcementInput struct {
	policy    *policy.Policy
	roots     []string
	path      string       // the server's PATH, to resolve the allowlist's names
	home      string       // the home directory commands get
	protected []string     // the server's binary, state directory and credentials
	self      string       // the server's binary, which runs the sandbox helper
	systemd   bool         // running as a systemd service, whose unit protects the system paths
	available func() error // whether the kernel can enforce; nil means sandbox.Available
}

// setupEnforcement confines the runner's commands with Landlock. The allowlist policy
// requires it and fails when the kernel cannot; the blocklist policy applies the write
// guard outside systemd when the kernel can, and says so when it cannot.
func setupEnforcement(ctx context.Context, log *slog.Logger, run *runner.Runner, in enforcementInput) (*enforcement, error) {
	for _, root := range in.roots {
		for _, p := range in.protected {
			if within(p, root) {
				return nil, fmt.Errorf("--allowed-roots %s holds %s, which commands must not be able to change; choose roots that do not hold the server's binary, state directory or credentials", root, p)
			}
		}
	}
	if in.available == nil {
		in.available = sandbox.Available
	}
	if in.self == "" && in.policy.Mode() != policy.Off {
		return nil, errors.New("the server cannot find its own binary (os.Executable), which confines commands; run it from a path that exists")
	}
	switch in.policy.Mode() {
	case policy.Allowlist:
		if err := in.available(); err != nil {
			return nil, fmt.Errorf("--policy allowlist is enforced by the kernel with Landlock, and here it cannot be: %w. Run on Linux 6.2 or newer with Landlock enabled (docs/shell.md, \"Kernel enforcement\"), or use --policy blocklist, which is a guardrail and not a boundary", err)
		}
		return sandboxAllowlist(ctx, run, in)
	case policy.Blocklist:
		if in.systemd {
			return withholdCgroups(ctx, log, run, in, "under systemd the unit's sandbox (ProtectSystem=strict, ProtectHome) keeps system paths read-only")
		}
		if err := in.available(); err != nil {
			note := fmt.Sprintf("no write guard: %v; commands can write wherever the server's user can", err)
			log.Warn("write guard", "note", note)
			return &enforcement{mode: "none", note: note}, nil
		}
		e, err := privateDirs("landlock-write-guard", false)
		if err != nil {
			return nil, err
		}
		writable, err := writeGuardPaths(in)
		if err == nil {
			if err = run.Sandbox(ctx, in.self, sandbox.Rules{Write: append(writable, e.tmpDir)}); err != nil {
				err = fmt.Errorf("the blocklist's write guard (Landlock) cannot be applied, so the server does not start: %w", err)
			}
		}
		if err != nil {
			e.close()
			return nil, err
		}
		return e, nil
	}
	return withholdCgroups(ctx, log, run, in, "--policy off")
}

// withholdCgroups is the enforcement where no write guard applies (the blocklist under
// systemd, --policy off): under cgroup containment Landlock still withholds the cgroup tree
// from commands, so none can move itself out of the cgroup it is killed by. Without Landlock
// the runner's sweep of the delegated subtree is what remains (docs/shell.md, "Processes").
func withholdCgroups(ctx context.Context, log *slog.Logger, run *runner.Runner, in enforcementInput, why string) (*enforcement, error) {
	if run.Mode() != runner.ModeCgroup {
		return &enforcement{mode: "none", note: why}, nil
	}
	err := in.available()
	if err == nil && in.self == "" {
		err = errors.New("the server cannot find its own binary (os.Executable)")
	}
	if err == nil {
		err = run.WithholdCgroups(ctx, in.self)
	}
	if err != nil {
		note := fmt.Sprintf("%s; commands are not kept from the cgroup tree (%v): one may move itself out of its cgroup, and the server sweeps its delegated subtree at every kill", why, err)
		log.Warn("cgroup guard", "note", note)
		return &enforcement{mode: "none", note: note}, nil
	}
	return &enforcement{mode: "landlock-cgroup-guard", note: why + "; Landlock only withholds the cgroup tree from commands"}, nil
}

// sandboxAllowlist builds the allowlist's confinement: a private directory with a PATH of
// links to the allowed programs and a temporary directory, and Landlock rules under which
// only bash and those programs execute and only the roots and the temporary directory are
// written. bash runs restricted (-r): no / in command names, no PATH changes, no output
// redirection.
func sandboxAllowlist(ctx context.Context, run *runner.Runner, in enforcementInput) (_ *enforcement, err error) {
	e, err := privateDirs("landlock-confined", true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	var programs []string
	for _, name := range in.policy.Allowed() {
		real, err := lookProgram(name, in.path)
		if errors.Is(err, exec.ErrNotFound) && policy.Builtin(name) {
			continue // a builtin such as echo: bash runs it itself
		}
		if err != nil {
			return nil, fmt.Errorf("--allow-commands %s: %w", name, err)
		}
		programs = append(programs, real)
		link := filepath.Join(e.path, filepath.Base(name))
		if prev, err := os.Readlink(link); err == nil {
			if prev == real {
				continue // listed by name and by path
			}
			return nil, fmt.Errorf("--allow-commands: %s and %s are both named %s; commands find programs by name, so list one", prev, real, filepath.Base(name))
		}
		if err := os.Symlink(real, link); err != nil {
			return nil, fmt.Errorf("--allow-commands %s: %w", name, err)
		}
	}
	rules, err := sandbox.StrictRules(ctx, runner.Shell, programs, append(slices.Clone(in.roots), e.tmpDir))
	if err != nil {
		return nil, fmt.Errorf("--allow-commands: %w", err)
	}
	if err := run.Sandbox(ctx, in.self, rules, "-r"); err != nil {
		return nil, fmt.Errorf("--policy allowlist: %w", err)
	}
	return e, nil
}

// privateDirs makes the private directory of confined commands: tmp for their TMPDIR and,
// with links, bin for the PATH of links to the allowed programs; 0700, removed by close.
func privateDirs(mode string, links bool) (*enforcement, error) {
	base, err := os.MkdirTemp("", "mcp-shell-")
	if err != nil {
		return nil, fmt.Errorf("private directory: %w", err)
	}
	e := &enforcement{mode: mode, base: base, tmpDir: filepath.Join(base, "tmp")}
	dirs := []string{e.tmpDir}
	if links {
		e.path = filepath.Join(base, "bin")
		dirs = append(dirs, e.path)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			e.close()
			return nil, fmt.Errorf("private directory: %w", err)
		}
	}
	return e, nil
}

// lookProgram resolves an allowlisted name (or absolute path) on path to its real file.
func lookProgram(name, path string) (string, error) {
	if filepath.IsAbs(name) {
		return filepath.EvalSymlinks(name)
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return filepath.EvalSymlinks(p)
		}
	}
	return "", fmt.Errorf("%w on PATH %s", exec.ErrNotFound, path)
}

// writeGuardPaths lists what the blocklist's write guard lets commands write: the roots, the
// null devices, and the temporary directories and the home directory (unless it is /) except
// the protected paths inside them.
func writeGuardPaths(in enforcementInput) ([]string, error) {
	w := append(slices.Clone(in.roots), sandbox.DevNulls...)
	var bases []string
	for _, d := range []string{os.TempDir(), os.Getenv("TMPDIR"), "/var/tmp", "/dev/shm", in.home} {
		if d == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(d); err == nil && real != "/" && !slices.Contains(bases, real) {
			bases = append(bases, real)
		}
	}
	for _, b := range bases {
		if info, err := os.Stat(b); err != nil || !info.IsDir() {
			continue
		}
		paths, err := except(b, in.protected, maxWriteGuardRules-len(w))
		if err != nil {
			return nil, fmt.Errorf("write guard: %w", err)
		}
		w = append(w, paths...)
	}
	return w, nil
}

// except returns paths that together cover everything under base except the protected
// paths: base itself when it holds none of them, else its entries, recursively. It fails
// when that takes more than limit paths.
func except(base string, protected []string, limit int) ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		hit := false
		for _, p := range protected {
			if within(dir, p) {
				return nil // protected itself, or inside a protected path
			}
			hit = hit || within(p, dir)
		}
		if !hit {
			out = append(out, dir)
			if len(out) > limit {
				return fmt.Errorf("leaving %s out of %s takes more than %d rules", strings.Join(protected, ", "), base, limit)
			}
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, en := range entries {
			if en.Type()&os.ModeSymlink != 0 {
				continue // a rule would follow it out of base
			}
			if err := walk(filepath.Join(dir, en.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(base)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
