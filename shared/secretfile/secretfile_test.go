package secretfile

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// otherID is a user and group id that this process is not and is not a member of.
const otherID = 54321

// setACL writes a POSIX access ACL: the owner rw, the owning group groupPerm, others none,
// plus one named user entry when user >= 0.
func setACL(t *testing.T, path string, groupPerm uint16, user int, userPerm uint16) {
	t.Helper()
	entry := func(tag, perm uint16, id uint32) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint16(b, tag)
		binary.LittleEndian.PutUint16(b[2:], perm)
		binary.LittleEndian.PutUint32(b[4:], id)
		return b
	}
	const undefined = 0xffffffff
	b := binary.LittleEndian.AppendUint32(nil, aclVersion)
	b = append(b, entry(aclUserObj, 6, undefined)...)
	if user >= 0 {
		b = append(b, entry(aclUser, userPerm, uint32(user))...)
	}
	b = append(b, entry(aclGroupObj, groupPerm, undefined)...)
	if user >= 0 {
		b = append(b, entry(aclMask, userPerm|groupPerm, undefined)...)
	}
	b = append(b, entry(aclOther, 0, undefined)...)
	if err := syscall.Setxattr(path, aclXattr, b, 0); err != nil {
		t.Skipf("this filesystem takes no POSIX ACLs: %v", err)
	}
}

// server is the identity the table below checks for: an unprivileged server user (uid 1000)
// that is a member of group 0, the group the test's files get.
var server = identity{uid: 1000, groups: []uint32{1000, 0}}

func TestCheckFileAndDir(t *testing.T) {
	const same = "same"
	tests := []struct {
		name              string
		dirMode, fileMode os.FileMode
		setup             func(t *testing.T, dir, file string)
		token, secret     string // what checkTokenFile and checkSecret say for server: "" accepts, else part of the error
		rootToken         string // for root (this process), when it differs
		rootSecret        string
	}{
		{"private", 0o700, 0o600, nil, "", "", same, same},
		{"read-only private file", 0o700, 0o400, nil, "", "", same, same},
		{"folder readable by all", 0o755, 0o600, nil, "open to every user (mode 0755): run chmod 700", "", same, same},
		{"folder open to its group", 0o750, 0o600, nil, "open to its group (mode 0750): run chmod 700", "", same, same},
		{"folder writable by all", 0o757, 0o600, nil, "open to every user", "open to every user (mode 0757): run chmod 700", same, same},
		{"folder writable by its group", 0o770, 0o600, nil, "open to its group", "open to its group (mode 0770): run chmod 700", same, same},
		{"sticky world-writable folder", 0o777 | os.ModeSticky, 0o600, nil, "open to every user", "open to every user (mode 1777)", same, same},
		{"file readable by all", 0o700, 0o644, nil, "secret file", "secret file", same, same},
		{"file readable by its group", 0o700, 0o640, nil, "open to its group", "open to its group (mode 0640): run chmod 600", same, same},
		{"file writable by others", 0o700, 0o602, nil, "run chmod 600", "run chmod 600", same, same},
		{"shared group folder", 0o770 | os.ModeSetgid, 0o660, nil, "", "", same, same},
		{"shared group folder open to all", 0o775 | os.ModeSetgid, 0o660, nil, "run chmod 2770", "", same, same},
		{"shared group file readable by all", 0o770 | os.ModeSetgid, 0o664, nil, "run chmod 660", "run chmod 660", same, same},
		{"setgid folder of a group not ours", 0o770 | os.ModeSetgid, 0o660, func(t *testing.T, dir, file string) {
			chown(t, dir, -1, otherID)
			chown(t, file, -1, otherID)
		}, "open to its group", "open to its group", "", ""},
		{"shared folder, file of another group", 0o770 | os.ModeSetgid, 0o660, func(t *testing.T, _, file string) { chown(t, file, -1, otherID) },
			"run chgrp", "run chgrp", same, same},
		{"shared folder, file of another member", 0o770 | os.ModeSetgid, 0o660, func(t *testing.T, _, file string) { chown(t, file, otherID, -1) }, "", "", same, same},
		{"folder of another user", 0o700, 0o600, func(t *testing.T, dir, _ string) { chown(t, dir, otherID, -1) }, "belongs to user 54321", "belongs to user 54321", "", ""},
		{"file of another user", 0o700, 0o600, func(t *testing.T, _, file string) { chown(t, file, otherID, -1) }, "belongs to user 54321", "belongs to user 54321", "", ""},
		{"folder and file of the server's user", 0o700, 0o600, func(t *testing.T, dir, file string) {
			chown(t, dir, int(server.uid), -1)
			chown(t, file, int(server.uid), -1)
		}, "", "", "", ""},
		{"ACL grants another user the file", 0o700, 0o600, func(t *testing.T, _, file string) { setACL(t, file, 0, otherID, 4) },
			"user 54321 (by an ACL)", "setfacl -b", same, same},
		{"ACL grants another user the folder", 0o700, 0o600, func(t *testing.T, dir, _ string) { setACL(t, dir, 0, otherID, 5) },
			"user 54321 (by an ACL)", "", same, same},
		{"ACL grants another user write to the folder", 0o700, 0o600, func(t *testing.T, dir, _ string) { setACL(t, dir, 0, otherID, 7) },
			"user 54321 (by an ACL)", "user 54321 (by an ACL)", same, same},
		{"systemd credential without ACLs: the server user's, 0500 and 0400", 0o500, 0o400, func(t *testing.T, dir, file string) {
			chown(t, dir, int(server.uid), -1)
			chown(t, file, int(server.uid), -1)
		}, "", "", "", ""},
		{"systemd credential: root's, read-only, ACL for the server's user", 0o500, 0o400, func(t *testing.T, dir, file string) {
			setACL(t, dir, 0, int(server.uid), 5)
			setACL(t, file, 0, int(server.uid), 4)
		}, "", "", "user 1000 (by an ACL)", "user 1000 (by an ACL)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "secrets")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "token.json")
			if err := os.WriteFile(file, []byte(`{"a":1}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, tt.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, dir, file)
			}
			expect(t, "server: token file", checkFile(file, false, server), tt.token)
			expect(t, "server: read-only secret", checkFile(file, true, server), tt.secret)

			rootToken, rootSecret := tt.rootToken, tt.rootSecret
			if rootToken == same {
				rootToken = tt.token
			}
			if rootSecret == same {
				rootSecret = tt.secret
			}
			expect(t, "root: CheckFile", CheckFile(file), rootToken)
			expect(t, "root: checkSecret", checkSecret(file), rootSecret)
			_, err := Read(file)
			expect(t, "root: Read", err, rootSecret)
			// Through a symbolic link in a private folder, the real file and folder are checked.
			link := filepath.Join(privateDir(t), "link.json")
			if err := os.Symlink(file, link); err != nil {
				t.Fatal(err)
			}
			expect(t, "server: token file via a link", checkFile(link, false, server), tt.token)
			// A link in a folder others can write is refused whatever it points at.
			openDir := t.TempDir() // 0755
			openLink := filepath.Join(openDir, "link.json")
			if err := os.Symlink(file, openLink); err != nil {
				t.Fatal(err)
			}
			if err := checkFile(openLink, false, server); err == nil || !strings.Contains(err.Error(), "chmod 700 "+openDir) {
				t.Errorf("a link in a 0755 folder: %v, want a refusal naming that folder", err)
			}
		})
	}
}

func chown(t *testing.T, path string, uid, gid int) {
	t.Helper()
	if err := os.Chown(path, uid, gid); err != nil {
		t.Skipf("cannot chown (tests need root): %v", err)
	}
}

func expect(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want no error", what, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: %v, want an error with %q", what, err, want)
	}
}

// privateDir is a temporary folder the checks accept: t.TempDir makes them 0755.
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadTooLarge(t *testing.T) {
	p := filepath.Join(privateDir(t), "tokens")
	if err := os.WriteFile(p, make([]byte, MaxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read of a file over MaxSize: %v", err)
	}
}
