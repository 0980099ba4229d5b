package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// maxInterpreters bounds how many #! interpreters a script's chain may pass through.
const maxInterpreters = 4

// Programs resolves programs (absolute paths) for the Execute and Read lists of Rules: the
// real file of each, the interpreter a script names on its #! line, the dynamic loader an
// ELF file names and the shared libraries that loader maps for it. Only these files are
// granted, not their directories, so no other program becomes executable or readable.
func Programs(ctx context.Context, programs ...string) (execute, read []string, err error) {
	seen := map[string]bool{}
	var visit func(p string, depth int) error
	visit = func(p string, depth int) error {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return err
		}
		if seen[real] {
			return nil
		}
		seen[real] = true
		info, err := os.Stat(real)
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() || info.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", real)
		}
		execute = append(execute, real)
		if interp, ok, err := shebang(real); err != nil {
			return err
		} else if ok {
			if depth >= maxInterpreters {
				return fmt.Errorf("%s: more than %d #! interpreters in a row", p, maxInterpreters)
			}
			return visit(interp, depth+1)
		}
		loader, err := elfInterpreter(real)
		if err != nil || loader == "" {
			return err // a static executable needs nothing more
		}
		if err := visit(loader, depth); err != nil {
			return fmt.Errorf("the dynamic loader of %s: %w", real, err)
		}
		libs, err := libraries(ctx, loader, real)
		if err != nil {
			return err
		}
		for _, l := range libs {
			lr, err := filepath.EvalSymlinks(l)
			if err != nil {
				return fmt.Errorf("library %s of %s: %w", l, real, err)
			}
			if !seen[lr] {
				seen[lr] = true
				read = append(read, lr)
			}
		}
		return nil
	}
	for _, p := range programs {
		if err := visit(p, 0); err != nil {
			return nil, nil, err
		}
	}
	return execute, read, nil
}

// shebang returns the interpreter a script's #! line names.
func shebang(path string) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return "", false, nil
	}
	if err != nil && line == "" {
		return "", false, err
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return "", false, fmt.Errorf("%s: the #! line names no absolute interpreter", path)
	}
	if filepath.Base(fields[0]) == "env" {
		return "", false, fmt.Errorf("%s runs its interpreter through env, which would let it run any program; list the interpreter instead", path)
	}
	return fields[0], true, nil
}

// elfInterpreter returns the PT_INTERP of an ELF file, "" for a static one.
func elfInterpreter(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s is neither an ELF executable nor a #! script: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("%s: reading PT_INTERP: %w", path, err)
		}
		return string(bytes.TrimRight(b, "\x00")), nil
	}
	return "", nil
}

// libraries asks the dynamic loader which shared libraries it maps for program.
func libraries(ctx context.Context, loader, program string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, loader, "--list", program)
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return nil, fmt.Errorf("listing the libraries of %s with %s --list: %w", program, loader, err)
	}
	var libs []string
	for line := range strings.Lines(string(out)) {
		// "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)", "/lib64/ld-linux-x86-64.so.2 (0x…)",
		// "linux-vdso.so.1 (0x…)"
		fields := strings.Fields(line)
		for i, f := range fields {
			if f == "=>" && i+1 < len(fields) {
				if fields[i+1] == "not" {
					return nil, fmt.Errorf("%s: library %s not found", program, fields[0])
				}
				if filepath.IsAbs(fields[i+1]) {
					libs = append(libs, fields[i+1])
				}
			}
		}
	}
	return libs, nil
}

// systemReads are the paths outside the programs' own files that confined commands read:
// configuration, locale and time zone data, terminal descriptions, /proc and /dev. None holds
// executables; missing ones are skipped.
var systemReads = []string{
	"/etc", "/proc", "/dev",
	"/usr/share/locale", "/usr/share/i18n", "/usr/share/zoneinfo", "/usr/share/terminfo", "/usr/share/misc",
	"/usr/lib/locale", "/usr/lib/x86_64-linux-gnu/gconv", "/usr/lib/aarch64-linux-gnu/gconv",
}

// DevNulls are the devices every confined command may write.
var DevNulls = []string{"/dev/null", "/dev/zero", "/dev/full"}

// StrictRules returns the Rules of the allowlist's sandbox: bash and programs (absolute paths) may be
// executed, with their loaders and libraries; the system paths of systemReads may be read;
// writable (directories or files) and the DevNulls may be written. Nothing else may be
// executed, read or written.
func StrictRules(ctx context.Context, bash string, programs, writable []string) (Rules, error) {
	exe, libs, err := Programs(ctx, append([]string{bash}, programs...)...)
	if err != nil {
		return Rules{}, err
	}
	r := Rules{Strict: true, Execute: exe, Read: libs}
	for _, p := range systemReads {
		if _, err := os.Stat(p); err == nil {
			r.Read = append(r.Read, p)
		}
	}
	for _, p := range slices.Concat(DevNulls, writable) {
		if _, err := os.Stat(p); err != nil {
			return Rules{}, fmt.Errorf("writable path: %w", err)
		}
		r.Write = append(r.Write, p)
	}
	return r.Clean(), nil
}
