package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPathSpellings: a path is judged by where the kernel takes it, whatever its spelling:
// /proc magic links, descriptors, .., home directories, and links made on the same line.
func TestPathSpellings(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist, Home("/home/alice"))
	R, C, W, D, A := RuleRmRoot, RuleChmodRoot, RuleWriteDevice, RuleDDDevice, RuleWriteAuthFiles
	runCases(t, p, "/srv/work", []lineCase{
		// /proc/PID/root is the process's root directory
		{"rm -rf /proc/self/root/etc", R},
		{"rm -rf /proc/self/root", R},
		{"rm -rf /proc/1/root/", R},
		{"rm -rf /proc/thread-self/root/usr", R},
		{"rm -rf /proc/self/task/1/root/var", R},
		{"rm -rf /proc/self/root/../../etc", R},
		{"rm -rf /proc/self/root/proc/self/root/boot", R},
		{"chmod -R 777 /proc/1/root/etc", C},
		{"find /proc/self/root/ -delete", R},
		{"echo x > /proc/self/root/etc/shadow", A},
		{"tee -a /proc/1/root/etc/sudoers.d/x < /dev/null", A},
		{"dd if=/dev/zero of=/proc/self/root/dev/sda", D},
		{"cat img > /proc/thread-self/root/dev/nvme0n1", W},
		{"cp x /proc/self/root/etc/passwd", A},
		{"rm -rf /proc/self/root/srv/work/build", ""},
		// /proc/self/cwd is the working directory; another process's cwd is unknown
		{"rm -rf /proc/self/cwd/build", ""},
		{"cd / && rm -rf /proc/self/cwd/", R},
		{"rm -rf /proc/1/cwd/", R},
		{"rm -rf /proc/42/cwd/x", R},
		{"echo x > /proc/1/cwd/etc/shadow", W},
		// a descriptor's target only the running command knows
		{"exec 3</; rm -rf /dev/fd/3/", R},
		{"rm -rf /dev/fd/3/..", R},
		{"rm -rf /proc/self/fd/3/etc", R},
		{"echo x > /dev/fd/3/shadow", W},
		{"echo x > /dev/stdin/../sda", W},
		{"echo x > /dev/fd/2", ""},
		{"echo x > /proc/self/fd/1", ""},
		// home directories, spelled every way
		{"rm -r /home/alice", R},
		{"rm -rf /home/alice/", R},
		{"rm -rf /home/bob", R},
		{"rm -rf /home/*", R},
		{"rm -rf /home/alice/*", R},
		{"rm -rf /home/alice/.*", R},
		{"rm -rf /proc/self/root/home/alice", R},
		{"rm -rf ~alice", R},
		{"rm -rf ~/", R},
		{"rm -rf ~/.", R},
		{"rm -rf ~/..", R},
		{"rm -rf ~/src/..", R},
		{"rm -rf /root", R},
		{"rm -rf ~root/", R},
		{"chown -R x /home/alice", C},
		{"cd /home && rm -rf alice", R},
		{"cd ~ && cd .. && rm -rf *", R},
		{"rm -rf /home/alice/src/build", ""},
		{"rm -rf ~/src/build", ""},
		{"rm -r /home", R},
		// links the line makes
		{"ln -s / x; rm -rf x/", R},
		{"ln -sfn /etc e && rm -rf e/", R},
		{"ln -s /etc e; echo x > e/shadow", A},
		{"ln -s /dev d; cat img > d/sda", W},
		{"ln -s / r; cd r; rm -rf usr", R},
		{"ln -s /usr; rm -rf usr/", R},
		{"ln -s /etc -t /tmp/l; echo x > /tmp/l/etc/passwd", A},
		{"ln -s / x; rm -f x", ""},
		{"ln -s /srv/work/a b; rm -rf b/", ""},
		// find's options before its start paths
		{"find -P / -delete", R},
		{"find -L -H -O3 -D tree / -delete", R},
		{"find -D stat,search /etc -delete", R},
		{"find -- /usr -delete", R},
		{"find -O1 /home/alice -delete", R},
		{"find -L . -delete", ""},
		{"find -H / -maxdepth 1 -exec rm -rf {} +", R},
		{"find . -fprint /etc/shadow", A},
		{"find . -fprintf /etc/passwd %p", A},
		{"find . -fls /dev/sda", W},
	})
}

// TestFollowSymlinks: with FollowSymlinks, links already on disk are followed like the kernel
// follows them: an intermediate link always, a last one only when a slash follows it (rm
// removes the link itself otherwise).
func TestFollowSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, target := range map[string]string{"root": "/", "etc": "/etc", "home": "/home/alice", "fine": dir} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := mustNewWith(t, Blocklist, Home("/home/alice"), FollowSymlinks())
	runCases(t, p, dir, []lineCase{
		{"rm -rf root/", RuleRmRoot},
		{"rm -rf " + dir + "/root/usr", RuleRmRoot},
		{"rm -rf home/", RuleRmRoot},
		{"rm -rf root", ""}, // the link itself
		{"chmod -R 700 etc", RuleChmodRoot},
		{"echo x > etc/shadow", RuleWriteAuthFiles},
		{"cd root && rm -rf *", RuleRmRoot},
		{"find etc/ -delete", RuleRmRoot},
		{"rm -rf fine/", ""},
	})
	plain := mustNewWith(t, Blocklist)
	runCases(t, plain, dir, []lineCase{{"rm -rf root/", ""}}) // without FollowSymlinks the disk is not read
}

func mustNewWith(t testing.TB, mode Mode, opts ...Option) *Policy {
	t.Helper()
	p, err := New(mode, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
