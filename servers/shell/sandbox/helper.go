package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// RulesFD is the descriptor the helper reads its rules from: the runner passes the file
// Rules.File made as the child's descriptor 3 (exec.Cmd.ExtraFiles[0]). Rules travel there,
// not in argv, so no size limit on arguments can fail a command.
const RulesFD = 3

// maxRulesBytes bounds the rules the helper reads.
const maxRulesBytes = 16 << 20

// checkArg puts the helper in its check mode: apply the rules to itself and exit 0.
const checkArg = "--check"

// File returns r as JSON in a sealed memfd (no process can change it; close-on-exec in the
// server), to pass on RulesFD to every helper; the helpers read it with pread, so one file
// serves commands starting at once. The caller closes it.
func (r Rules) File() (*os.File, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("mcp-shell-sandbox-rules", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create for the sandbox rules: %w", err)
	}
	f := os.NewFile(uintptr(fd), "mcp-shell-sandbox-rules")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the sandbox rules: %w", err)
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the sandbox rules: %w", err)
	}
	return f, nil
}

// Command returns the argv that runs argv through the helper mode of the binary self (the
// server's own executable), which reads its rules on RulesFD.
func Command(self string, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run in the sandbox")
	}
	return append([]string{self, HelperArg, "--"}, argv...), nil
}

// Check runs the helper of the binary self once in its check mode, with rules on RulesFD: it
// applies the rules to itself and exits. It returns why the rules cannot be applied, so the
// server refuses to start rather than fail every command.
func Check(ctx context.Context, self string, rules *os.File) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, HelperArg, checkArg)
	cmd.ExtraFiles = []*os.File{rules}
	cmd.Env = []string{}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("the sandbox helper cannot apply its rules: %s", msg)
	}
	return nil
}

// IsHelper reports whether args (os.Args) start the helper mode.
func IsHelper(args []string) bool { return len(args) > 1 && args[1] == HelperArg }

// Main is the helper mode: args are os.Args[2:], "--check" or "--" and the command. It reads
// the rules on RulesFD, confines the process, marks every descriptor above 2 close-on-exec
// and executes the command, returning only on failure, with ExitSetup (or, in check mode,
// 0 once the rules are applied).
func Main(args []string) int {
	err := helper(args) // returns only when the command could not be started
	switch {
	case errors.Is(err, errChecked):
		return 0
	case len(args) == 1 && args[0] == checkArg:
		fmt.Fprintf(os.Stderr, "%v\n", err)
	default:
		fmt.Fprintf(os.Stderr, "mcp-shell sandbox: %v; the command was not run\n", err)
	}
	return ExitSetup
}

// errChecked ends the check mode: the rules were applied.
var errChecked = errors.New("the rules apply")

func helper(args []string) error {
	check := len(args) == 1 && args[0] == checkArg
	if !check && (len(args) < 2 || args[0] != "--") {
		return errors.New("usage: " + HelperArg + " --check | -- PROGRAM [ARGS...]")
	}
	r, err := readRules(RulesFD)
	if err != nil {
		return err
	}
	// The restriction and the exec happen on one thread: landlock_restrict_self confines the
	// calling thread, and execve keeps that thread's credentials.
	runtime.LockOSThread()
	if err := r.restrict(); err != nil {
		return err
	}
	if check {
		return errChecked
	}
	// Nothing the server (or whoever started it) had open may reach the command: a confined
	// command could still write to an inherited descriptor, which Landlock does not check.
	if err := CloseOnExec(3); err != nil {
		return fmt.Errorf("closing inherited descriptors: %w", err)
	}
	argv := args[1:]
	err = syscall.Exec(argv[0], argv, os.Environ())
	return fmt.Errorf("exec %s: %w", argv[0], err)
}

// readRules reads the rules on fd with pread from its start (the open file is shared by
// helpers starting at once) and closes fd.
func readRules(fd int) (Rules, error) {
	defer unix.Close(fd)
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	for off := int64(0); ; {
		n, err := unix.Pread(fd, chunk, off)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return Rules{}, fmt.Errorf("reading the rules on descriptor %d: %w", fd, err)
		}
		if n == 0 {
			break
		}
		buf.Write(chunk[:n])
		off += int64(n)
		if buf.Len() > maxRulesBytes {
			return Rules{}, fmt.Errorf("the rules on descriptor %d are over %d bytes", fd, maxRulesBytes)
		}
	}
	var r Rules
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		return Rules{}, fmt.Errorf("reading the rules: %w", err)
	}
	return r, nil
}

// CloseOnExec marks every descriptor from from upwards close-on-exec, so that the next
// execve closes them all: close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11), else each
// descriptor listed in /proc/self/fd, else every number below the descriptor limit. Marking
// rather than closing leaves the Go runtime's own descriptors working until the exec.
func CloseOnExec(from int) error {
	err := unix.CloseRange(uint(from), math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("close_range: %w", err)
	}
	mark := func(fd int) {
		if fd >= from {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range entries {
			if fd, err := strconv.Atoi(e.Name()); err == nil {
				mark(fd)
			}
		}
		return nil
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("getrlimit: %w", err)
	}
	for fd := from; uint64(fd) < lim.Cur; fd++ {
		mark(fd)
	}
	return nil
}
