package runner

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupTree is the part of the cgroup v2 hierarchy a runner uses: the server moves itself
// into serverDir (a leaf, because a cgroup with children may hold no processes once
// controllers are enabled) and makes one cgroup per command under jobsDir.
type cgroupTree struct {
	serverDir string
	jobsDir   string
	base      string   // the cgroup the server started in, holding serverDir and jobsDir
	ownsBase  bool     // base is a systemd service's own cgroup (Delegate=yes): everything in it is the server's
	mounts    []string // every cgroup hierarchy's mount point, which commands must not write to
}

// cgroupMount finds where the cgroup v2 hierarchy is mounted and the mount's root, from
// /proc/self/mountinfo. The same hierarchy may also be mounted elsewhere (a container's
// scratch root); a mount under /sys/fs/cgroup, where init mounts it, is preferred.
func cgroupMount() (mountPoint, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 1 || tail[0] != "cgroup2" {
			continue
		}
		m, r := unescapeMount(fields[4]), unescapeMount(fields[3])
		if mountPoint == "" || strings.HasPrefix(m, "/sys/fs/cgroup") && !strings.HasPrefix(mountPoint, "/sys/fs/cgroup") {
			mountPoint, root = m, r
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	if mountPoint == "" {
		return "", "", errors.New("no cgroup v2 hierarchy is mounted")
	}
	return mountPoint, root, nil
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline and backslash.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroup is this process's cgroup v2 path, from /proc/self/cgroup ("0::/path").
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("/proc/self/cgroup has no cgroup v2 entry")
}

// newCgroupTree moves the server into a leaf cgroup of its own (once per process) and makes a
// directory for this runner's command cgroups beside it. It fails when the hierarchy is not
// writable (no delegation) or the kernel has no cgroup.kill (before 5.14).
func newCgroupTree() (*cgroupTree, error) {
	mount, root, err := cgroupMount()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	own, root = path.Clean(own), path.Clean(root)
	rel, ok := own, true
	if root != "/" {
		rel, ok = strings.CutPrefix(own, root)
		ok = ok && (rel == "" || rel[0] == '/')
	}
	if !ok {
		return nil, fmt.Errorf("cgroup %s is outside the mounted hierarchy %s", own, root)
	}
	dir := filepath.Join(mount, rel)
	leaf := "shell-server-" + strconv.Itoa(os.Getpid())
	base := dir
	if filepath.Base(dir) == leaf {
		base = filepath.Dir(dir)
	} else {
		server := filepath.Join(base, leaf)
		if err := os.Mkdir(server, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("make the server's cgroup: %w", err)
		}
		if err := writeFile(filepath.Join(server, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			_ = os.Remove(server)
			return nil, fmt.Errorf("move the server into %s: %w", server, err)
		}
	}
	removeStale(base)
	jobs := filepath.Join(base, "shell-jobs-"+strconv.Itoa(os.Getpid())+"-"+randomID())
	if err := os.Mkdir(jobs, 0o755); err != nil {
		return nil, fmt.Errorf("make the command cgroups' parent: %w", err)
	}
	if _, err := os.Stat(filepath.Join(jobs, "cgroup.kill")); err != nil {
		_ = os.Remove(jobs)
		return nil, errors.New("the kernel has no cgroup.kill (needs Linux 5.14 or later)")
	}
	mounts, err := cgroupMounts()
	if err != nil {
		_ = os.Remove(jobs)
		return nil, err
	}
	// A service's cgroup (Delegate=yes) holds only the service's processes; a scope or a
	// session's cgroup may hold the user's own, which are never swept.
	owns := strings.HasSuffix(filepath.Base(base), ".service") && os.Getenv("INVOCATION_ID") != ""
	t := &cgroupTree{serverDir: filepath.Join(base, leaf), jobsDir: jobs, base: base, ownsBase: owns, mounts: mounts}
	if err := t.probe(); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// probe starts Shell into a cgroup once: a seccomp filter may refuse clone3, which starting
// a process straight into a cgroup needs, and then no command could run.
func (t *cgroupTree) probe() error {
	dir, fd, err := t.create("probe")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(dir) }()
	defer fd.Close()
	cmd := exec.Command(Shell, "-c", "exit 0")
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(fd.Fd())}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("starting a process into a cgroup failed (is clone3 blocked?): %w", err)
	}
	return nil
}

// removeStale removes the cgroups earlier server processes left under base; rmdir refuses
// a cgroup that still holds processes.
func removeStale(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "shell-server-")
		if !ok {
			rest, ok = strings.CutPrefix(e.Name(), "shell-jobs-")
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		_ = removeCgroup(filepath.Join(base, e.Name()))
	}
}

// create makes a command's cgroup and opens it for clone3's CLONE_INTO_CGROUP.
func (t *cgroupTree) create(id string) (string, *os.File, error) {
	dir := filepath.Join(t.jobsDir, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("make the command's cgroup: %w", err)
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		_ = os.Remove(dir)
		return "", nil, fmt.Errorf("open the command's cgroup: %w", err)
	}
	return dir, f, nil
}

// killCgroup kills every process in the cgroup dir and its descendant cgroups, and waits up
// to wait for them to go; it returns the processes still there.
func killCgroup(dir string, wait time.Duration) []int {
	if !populated(dir) {
		return nil
	}
	_ = writeFile(filepath.Join(dir, "cgroup.kill"), "1")
	deadline := time.Now().Add(wait)
	for populated(dir) {
		if time.Now().After(deadline) {
			return subtreeProcs(dir)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// populated reports whether a live process is in the cgroup or below it (cgroup.events).
func populated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return bytes.Contains(b, []byte("populated 1"))
}

// subtreeProcs lists the live processes in the cgroup dir and its descendant cgroups.
func subtreeProcs(dir string) []int {
	pids := cgroupProcs(dir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			pids = append(pids, subtreeProcs(filepath.Join(dir, e.Name()))...)
		}
	}
	return pids
}

// cgroupProcs lists the live processes in a cgroup (zombies are not listed).
func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sweep kills processes that moved themselves out of their command's cgroup into places the
// runner can see: the server's own cgroup (anything there but the server and its direct
// children that are not commands) and cgroups under jobsDir that no live command owns. It
// returns what survived.
func (t *cgroupTree) sweep(live func(name string) bool, tracked func(pid int) bool) []int {
	var survivors []int
	self := os.Getpid()
	for _, pid := range cgroupProcs(t.serverDir) {
		if pid == self {
			continue
		}
		p, err := readStat(pid)
		// The server's own direct children (version probes) stay, unless they are commands:
		// tracked, or tagged with a job id (an orphan adopted by a subreaper in tests).
		if err != nil || (p.PPID == self && !tracked(pid) && !envHasName(pid, JobEnv)) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		survivors = append(survivors, pid)
	}
	ents, _ := os.ReadDir(t.jobsDir)
	for _, e := range ents {
		if !e.IsDir() || live(e.Name()) {
			continue
		}
		dir := filepath.Join(t.jobsDir, e.Name())
		survivors = append(survivors, removeCgroup(dir)...)
	}
	if t.ownsBase {
		survivors = append(survivors, t.sweepForeign(self)...)
	}
	if len(survivors) == 0 {
		return nil
	}
	// KILL takes effect when the process next runs, which on a busy machine may take a while:
	// wait for them as killCgroup does.
	deadline := time.Now().Add(killWait)
	for {
		var left []int
		for _, pid := range survivors {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		survivors = left
		time.Sleep(time.Millisecond)
	}
}

// sweepForeign kills what is in the cgroups under base that the runner did not make (a
// command made them to leave its own: base is delegated to the server's user, so a command may
// mkdir there and move itself in) and removes them, and kills what moved into base itself.
// Only for a service's own cgroup, which holds nothing but the server's processes; where the
// kernel has Landlock, commands cannot write to the cgroup tree at all (WithholdCgroups).
func (t *cgroupTree) sweepForeign(self int) []int {
	var left []int
	for _, pid := range cgroupProcs(t.base) {
		if pid != self {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			left = append(left, pid)
		}
	}
	ents, _ := os.ReadDir(t.base)
	for _, e := range ents {
		dir := filepath.Join(t.base, e.Name())
		if !e.IsDir() || dir == t.serverDir || dir == t.jobsDir {
			continue
		}
		left = append(left, removeCgroup(dir)...)
	}
	return left
}

// removeCgroup kills what is in dir and its children, then removes them, deepest first.
func removeCgroup(dir string) []int {
	var left []int
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			left = append(left, removeCgroup(filepath.Join(dir, e.Name()))...)
		}
	}
	left = append(left, killCgroup(dir, time.Second)...)
	_ = os.Remove(dir)
	return left
}

// close removes the command cgroups' parent; the server's own leaf stays while it runs.
func (t *cgroupTree) close() { _ = removeCgroup(t.jobsDir) }

func writeFile(name, data string) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
