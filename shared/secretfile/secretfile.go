// Package secretfile keeps secrets private: it refuses a secret file, or the folder it is in,
// that anyone but this process's user (or root, or the group of a shared group folder) can get
// at, naming the command that fixes it, and reads a secret only after that check. The OAuth
// token stores (shared/oauth) and the bearer tokens file (shared/guard) both go through it.
package secretfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Two rules, one for the folder a token store reads and writes, one for a secret that is only
// read (an OAuth client, the bearer tokens file).
//
// A token folder (CheckDir) and every file in it (CheckFile):
//   - belong to this process's user or to root (a process running as root accepts any owner:
//     root administers the servers' folders, e.g. `spotify auth login` in mcp-spotify's);
//   - let nobody else read, write or enter them: no "other" bits, no group bits, no POSIX ACL
//     entry for another user or any named group;
//   - except a shared group folder: setgid, its group one of this process's groups (any group
//     for root), no "other" bits (docs/google.md: root:mcp-google 2770). There the group may
//     read and write, and a file may belong to any member, as long as its group is the folder's.
//
// ACL entries are read strictly: a named entry counts whatever the mask, and a format or tag
// this code does not know is refused.
//
// A read-only secret (checkSecret): the file as above; its folder as above except that others
// may read and enter it (not write it), since the file's own mode keeps its content private
// and only write access to the folder would let someone replace it.
//
// A systemd credential passes both: systemd makes the folder and files root's, read-only, and
// grants the service's user read access by an ACL entry naming that user.

// aclXattr is where Linux keeps a file's POSIX access ACL.
const aclXattr = "system.posix_acl_access"

// ACL entry tags and the version of the xattr format (linux/posix_acl_xattr.h).
const (
	aclVersion  = 2
	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclGroup    = 0x08
	aclMask     = 0x10
	aclOther    = 0x20
)

// access is what a folder or file lets others than its owner do.
type access struct {
	path      string
	info      fs.FileInfo
	mode      uint32 // permission bits with setuid, setgid and sticky, as chmod takes them
	uid, gid  uint32
	groupPerm uint32     // the owning group's rwx bits
	otherPerm uint32     // everyone else's
	named     []aclEntry // ACL entries naming a user or group, with a permission
}

type aclEntry struct {
	tag  uint16
	id   uint32
	perm uint32
}

// identity is who the checks protect the secrets for: this process's user and groups.
type identity struct {
	uid    uint32
	groups []uint32
}

// self is the identity of this process.
func self() identity {
	id := identity{uid: uint32(os.Geteuid()), groups: []uint32{uint32(os.Getgid()), uint32(os.Getegid())}}
	if more, err := os.Getgroups(); err == nil {
		for _, g := range more {
			id.groups = append(id.groups, uint32(g))
		}
	}
	return id
}

func inspect(path string, id identity) (*access, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("%s: cannot read its owner on this system", path)
	}
	a := &access{path: path, info: info, mode: st.Mode & 0o7777, uid: st.Uid, gid: st.Gid,
		groupPerm: uint32(info.Mode().Perm()>>3) & 7, otherPerm: uint32(info.Mode().Perm()) & 7}
	if err := a.readACL(id); err != nil {
		return nil, err
	}
	return a, nil
}

// readACL replaces the mode's group bits (which are the ACL mask when an ACL exists) by the
// owning group's own entry and records the named entries.
func (a *access) readACL(self identity) error {
	buf := make([]byte, 1024)
	n, err := syscall.Getxattr(a.path, aclXattr, buf)
	if errors.Is(err, syscall.ENODATA) || errors.Is(err, syscall.ENOTSUP) {
		return nil // no ACL: the mode bits say it all
	}
	if err != nil {
		return fmt.Errorf("%s: reading its ACL: %w", a.path, err)
	}
	b := buf[:n]
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != aclVersion || (len(b)-4)%8 != 0 {
		return fmt.Errorf("%s: an ACL this program does not understand; remove it with setfacl -b %s", a.path, a.path)
	}
	for e := b[4:]; len(e) > 0; e = e[8:] {
		tag, perm, id := binary.LittleEndian.Uint16(e), uint32(binary.LittleEndian.Uint16(e[2:]))&7, binary.LittleEndian.Uint32(e[4:])
		switch tag {
		case aclUserObj, aclMask:
		case aclGroupObj:
			a.groupPerm = perm
		case aclOther:
			a.otherPerm = perm
		case aclUser, aclGroup:
			if perm != 0 && (tag != aclUser || id != self.uid) {
				a.named = append(a.named, aclEntry{tag, id, perm})
			}
		default:
			return fmt.Errorf("%s: an ACL entry this program does not understand (tag %#x); remove it with setfacl -b %s", a.path, tag, a.path)
		}
	}
	return nil
}

// ownerOK reports whether a folder or file may belong to uid: to this user or root; when this
// process is root, to anyone (root administers the servers' own folders, as `auth login` does).
func (id identity) ownerOK(uid uint32) bool {
	return uid == 0 || uid == id.uid || id.uid == 0
}

// shared reports whether a folder is a shared group folder (see the rules above); root counts
// as a member of every group.
func (a *access) shared(id identity) bool {
	return a.info.IsDir() && a.info.Mode()&fs.ModeSetgid != 0 && (id.uid == 0 || slices.Contains(id.groups, a.gid))
}

// others names the first besides the owner that holds any of the permission bits in mask:
// everyone ("other"), a user or group named by an ACL entry, or the owning group (unless the
// folder is shared with it). It returns "" when nobody does.
func (a *access) others(groupShared bool, mask uint32) string {
	if a.otherPerm&mask != 0 {
		return "every user"
	}
	for _, e := range a.named {
		if e.perm&mask == 0 {
			continue
		}
		if e.tag == aclUser {
			return fmt.Sprintf("user %d (by an ACL)", e.id)
		}
		return fmt.Sprintf("group %d (by an ACL)", e.id)
	}
	if !groupShared && a.groupPerm&mask != 0 {
		return "its group"
	}
	return ""
}

// refuse words the error for a folder or file that grants who perm, with the command that fixes it.
func (a *access) refuse(kind, who, mode string) error {
	fix := fmt.Sprintf("chmod %s %s", mode, a.path)
	if len(a.named) > 0 {
		fix = fmt.Sprintf("setfacl -b %s && chmod %s %s", a.path, mode, a.path)
	}
	return fmt.Errorf("%s %s is open to %s (mode %04o): run %s", kind, a.path, who, a.mode, fix)
}

func (a *access) ownerCheck(kind string, id identity) error {
	if id.ownerOK(a.uid) {
		return nil
	}
	return fmt.Errorf("%s %s belongs to user %d, not to this user (%d) or root: chown it to the user that runs the server", kind, a.path, a.uid, id.uid)
}

// checkDir checks a folder; readOnly allows others to read and enter it, never to write.
func checkDir(dir string, readOnly bool, id identity) (shared bool, err error) {
	a, err := inspect(dir, id)
	if err != nil {
		return false, fmt.Errorf("secret folder: %w", err)
	}
	if !a.info.IsDir() {
		return false, fmt.Errorf("secret folder %s is not a folder", dir)
	}
	if err := a.ownerCheck("secret folder", id); err != nil {
		return false, err
	}
	shared = a.shared(id)
	mask := uint32(7)
	if readOnly {
		mask = 2 // only write access lets others replace a secret
	}
	if who := a.others(shared, mask); who != "" {
		mode := "700"
		if shared {
			mode = "2770"
		}
		err := a.refuse("secret folder", who, mode)
		if who == "its group" {
			err = fmt.Errorf("%w (a folder a group of servers shares must be setgid, 2770, and its group one of this user's)", err)
		}
		return false, err
	}
	return shared, nil
}

// CheckDir refuses a token folder that anyone but this process's user (or root, or the group
// of a shared group folder) can read, write or enter; the error names the fix. It reports
// whether the folder is a shared group folder.
func CheckDir(dir string) (shared bool, err error) { return checkDir(dir, false, self()) }

// CheckFile refuses a token file that others can read or change, or that lies in a folder
// CheckDir refuses. A symbolic link is followed: its folder, and the real file and its folder,
// are checked.
func CheckFile(path string) error { return checkFile(path, false, self()) }

// checkSecret refuses a secret file that is only read (an OAuth client, bearer tokens) when
// others can read or change it, or write to its folder.
func checkSecret(path string) error { return checkFile(path, true, self()) }

func checkFile(path string, readOnly bool, id identity) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if real != path && filepath.Dir(real) != filepath.Dir(path) {
		// Whoever can write the link's folder can point the link elsewhere.
		if _, err := checkDir(filepath.Dir(path), readOnly, id); err != nil {
			return err
		}
	}
	shared, err := checkDir(filepath.Dir(real), readOnly, id)
	if err != nil {
		return err
	}
	a, err := inspect(real, id)
	if err != nil {
		return err
	}
	if !a.info.Mode().IsRegular() {
		return fmt.Errorf("secret file %s is not a regular file", path)
	}
	if shared {
		dir, err := inspect(filepath.Dir(real), id)
		if err != nil {
			return err
		}
		if a.gid != dir.gid {
			return fmt.Errorf("secret file %s belongs to group %d, not to its shared folder's group %d: run chgrp %d %s", path, a.gid, dir.gid, dir.gid, path)
		}
	} else if err := a.ownerCheck("secret file", id); err != nil {
		return err
	}
	if who := a.others(shared, 7); who != "" {
		mode := "600"
		if shared {
			mode = "660"
		}
		return a.refuse("secret file", who, mode)
	}
	return nil
}

// EnsureDir creates a missing token folder (and missing parents) 0700 and checks it with CheckDir.
func EnsureDir(dir string) (shared bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("secret folder: %w", err)
	}
	return CheckDir(dir)
}

// MaxSize bounds a secret file Read takes: a token, a client or a tokens file is far smaller.
const MaxSize = 1 << 20

// Read reads a small secret file that is only read (an OAuth client, bearer tokens) after
// checking it: others may read and enter its folder, never write it.
func Read(path string) ([]byte, error) {
	if err := checkSecret(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d bytes, not a secret file", path, MaxSize)
	}
	return data, nil
}
