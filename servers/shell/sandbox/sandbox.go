// Package sandbox confines the commands the shell server runs with Landlock, below the
// command policy: a command the policy misreads still cannot execute a program or write a
// file the rules do not grant. Go cannot run code between fork and exec, so the server
// starts its own binary in a hidden helper mode (Command builds that argv, File holds the
// rules it reads on descriptor 3); the helper restricts itself (Main), marks every
// descriptor above 2 close-on-exec and then executes bash, which with everything it starts
// inherits the restriction and nothing else the server had open.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// HelperArg is the first argument that puts the server binary in its helper mode.
const HelperArg = "__mcp-shell-sandbox"

// MinABI is the oldest Landlock ABI the sandbox accepts: ABI 3 (Linux 6.2) is the first that
// handles truncate(2), without which a confined command could still empty any file it can
// reach.
const MinABI = 3

// ExitSetup is the exit status of a helper that could not confine itself; it never runs the
// command then.
const ExitSetup = 126

// Rights of the rules; every set excludes execute unless named so.
const (
	readFile  = ll.AccessFSReadFile
	readDir   = ll.AccessFSReadFile | ll.AccessFSReadDir
	writeFile = ll.AccessFSWriteFile | ll.AccessFSTruncate
	writeDir  = ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSMakeFifo | ll.AccessFSMakeSock |
		ll.AccessFSRefer
	// allFS is every file system right of ABI 3.
	allFS = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSReadDir |
		ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir |
		ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock |
		ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate
	// writeRights is every right that changes the file system.
	writeRights = allFS &^ (ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
)

// Rules is what sandboxed commands may do. With Strict set, a command may execute only the
// Execute files, read only those and the Read paths, and write only the Write paths, and
// where the kernel has Landlock ABI 6 it may not signal processes outside its domain. Without
// Strict only writing is restricted (to the Write paths); reading and executing are not.
type Rules struct {
	Strict  bool     `json:"strict,omitempty"`
	Execute []string `json:"execute,omitempty"` // regular files that may be executed and read
	Read    []string `json:"read,omitempty"`    // files, or directories with all below them, that may be read; missing ones are skipped
	Write   []string `json:"write,omitempty"`   // files, or directories with all below them, that may be read and written; missing ones are skipped
}

// ABI returns the Landlock ABI version of the running kernel, or an error saying why there
// is none.
func ABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, errors.New("the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)")
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, errors.New("the kernel has Landlock built in but not enabled: add landlock to its lsm= boot parameter (see /sys/kernel/security/lsm)")
	case errors.Is(err, syscall.EPERM):
		return 0, errors.New("a seccomp filter refuses the landlock system calls (under systemd add SystemCallFilter=landlock_create_ruleset landlock_add_rule landlock_restrict_self)")
	case err != nil:
		return 0, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	return v, nil
}

// Available returns nil when the running kernel can enforce Rules, else why not.
func Available() error {
	v, err := ABI()
	if err != nil {
		return err
	}
	if v < MinABI {
		return fmt.Errorf("the kernel has Landlock ABI %d; ABI %d (Linux 6.2) or newer is needed", v, MinABI)
	}
	return nil
}

// restrict confines the calling thread (and whatever it executes) to r.
func (r Rules) restrict() error {
	if err := Available(); err != nil {
		return err
	}
	handled := landlock.AccessFSSet(writeRights)
	if r.Strict {
		handled = allFS
	}
	var rules []landlock.Rule
	add := func(path string, fileRights, dirRights landlock.AccessFSSet) error {
		info, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) && fileRights&ll.AccessFSExecute == 0 {
			return nil // gone since the rules were made: the command gets fewer rights, never more
		}
		if err != nil {
			return fmt.Errorf("rule path: %w", err)
		}
		rights := dirRights
		if !info.IsDir() {
			rights = fileRights
		}
		rights &= handled
		if rights != 0 {
			rule := landlock.PathAccess(rights, path)
			if fileRights&ll.AccessFSExecute == 0 {
				// A path removed between this Stat and the ruleset's open gives fewer rights too.
				rule = rule.IgnoreIfMissing()
			}
			rules = append(rules, rule)
		}
		return nil
	}
	for _, p := range r.Execute {
		if err := add(p, ll.AccessFSExecute|readFile, 0); err != nil {
			return err
		}
	}
	for _, p := range r.Read {
		if err := add(p, readFile, readDir); err != nil {
			return err
		}
	}
	for _, p := range r.Write {
		if err := add(p, readFile|writeFile, readDir|writeDir); err != nil {
			return err
		}
	}
	cfg := landlock.Config{HandledAccessFS: handled}
	if v, _ := ABI(); r.Strict && v >= 6 {
		// A confined command may not signal, or reach through an abstract Unix socket, any
		// process outside its domain, the server first of all (ABI 6, Linux 6.12).
		cfg.Scoped = ll.ScopeSignal | ll.ScopeAbstractUnixSocket
	}
	fd, _, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	defer syscall.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// Clean returns r with duplicate paths removed, each list sorted.
func (r Rules) Clean() Rules {
	for _, l := range []*[]string{&r.Execute, &r.Read, &r.Write} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return r
}
