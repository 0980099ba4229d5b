package runner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Mode is how a runner finds everything a command started, so that it can kill it all.
type Mode string

// Containment modes, strongest first.
const (
	// ModeCgroup puts each command in a cgroup v2 of its own, which no descendant can leave
	// without write access to the cgroup tree, and kills it with cgroup.kill.
	ModeCgroup Mode = "cgroup"
	// ModeSubreaper makes the server a child subreaper, so orphans of a command become the
	// server's children instead of init's; it finds them by the job tag in their environment.
	ModeSubreaper Mode = "subreaper"
	// ModeGroup kills the command's process group only; a descendant that calls setsid or
	// setpgid escapes. Used only when neither of the others is available.
	ModeGroup Mode = "process-group"
)

// JobEnv is the environment variable that tags every process of a command with its job id.
const JobEnv = "MCP_SHELL_JOB"

// killWait bounds how long a kill waits for the killed processes to disappear.
const killWait = time.Second

// Runner runs commands and kills everything they start; it is safe for concurrent use.
type Runner struct {
	mode Mode
	note string
	cg   *cgroupTree
	self int

	mu      sync.Mutex
	jobs    map[string]*job // live jobs by id
	tracked map[int]bool    // pids of the bash processes os/exec waits for
	adopted map[int]bool    // orphans of live jobs reparented to the server, reaped by the runner
	scanner bool            // the orphan scanner goroutine runs

	children func(pid int) []int

	prefix []string // the sandbox helper's argv before -c, when commands are sandboxed
	rules  *os.File // the sandbox rules, the helper's descriptor 3 (sandbox.RulesFD)
}

// New returns a runner in the given mode: "cgroup", "subreaper", or "auto" for the strongest
// one available. A mode asked for by name that is not available is an error.
func New(want string) (*Runner, error) {
	r := &Runner{self: os.Getpid(), jobs: map[string]*job{}, tracked: map[int]bool{}, adopted: map[int]bool{}, children: scanChildren}
	if hasTaskChildren() {
		r.children = taskChildren
	}
	var cgErr error
	if want == "auto" || want == string(ModeCgroup) {
		r.cg, cgErr = newCgroupTree()
		if cgErr == nil {
			r.mode = ModeCgroup
			return r, nil
		}
		if want == string(ModeCgroup) {
			return nil, fmt.Errorf("cgroup containment is not available: %w", cgErr)
		}
	}
	if want != "auto" && want != string(ModeSubreaper) {
		return nil, fmt.Errorf("containment %q: use auto, cgroup or subreaper", want)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		if want == string(ModeSubreaper) {
			return nil, fmt.Errorf("subreaper containment is not available: %w", err)
		}
		r.mode = ModeGroup
		r.note = fmt.Sprintf("only the process group: no cgroup (%v) and no subreaper (%v)", cgErr, err)
		return r, nil
	}
	r.mode = ModeSubreaper
	if cgErr != nil {
		r.note = fmt.Sprintf("no cgroup: %v", cgErr)
	}
	return r, nil
}

// Mode is the containment in force.
func (r *Runner) Mode() Mode { return r.mode }

// Note says why a stronger containment is not in force; empty when cgroup is.
func (r *Runner) Note() string { return r.note }

// Close removes the runner's cgroups; call it once every command has ended.
func (r *Runner) Close() {
	if r.cg != nil {
		r.cg.close()
	}
	if r.rules != nil {
		_ = r.rules.Close()
	}
}

// job is one command's processes.
type job struct {
	r    *Runner
	id   string
	dir  string   // its cgroup, in cgroup mode
	fd   *os.File // open on dir until the command started
	proc *os.Process
	pid  int // 0 until started
}

// prepare tags cmd's environment with a new job id and, in cgroup mode, makes it start in a
// cgroup of its own. The job is registered before the command starts.
func (r *Runner) prepare(cmd *exec.Cmd) (*job, error) {
	j := &job{r: r, id: randomID()}
	cmd.Env = append(cmd.Env, JobEnv+"="+j.id)
	if r.cg != nil {
		dir, fd, err := r.cg.create(j.id)
		if err != nil {
			return nil, err
		}
		j.dir, j.fd = dir, fd
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(fd.Fd())
	}
	r.mu.Lock()
	r.jobs[j.id] = j
	r.mu.Unlock()
	return j, nil
}

// started records the bash process os/exec started and will wait for; a nil proc means the
// start failed.
func (j *job) started(proc *os.Process) {
	if j.fd != nil {
		_ = j.fd.Close()
		j.fd = nil
	}
	if proc == nil {
		return
	}
	r := j.r
	r.mu.Lock()
	j.proc, j.pid = proc, proc.Pid
	r.tracked[proc.Pid] = true
	start := r.mode == ModeSubreaper && !r.scanner
	r.scanner = r.scanner || start
	r.mu.Unlock()
	if start {
		go r.scan()
	}
}

// waited records that os/exec has reaped the bash process.
func (j *job) waited() {
	j.r.mu.Lock()
	delete(j.r.tracked, j.pid)
	j.r.mu.Unlock()
}

// kill kills every process of the job and returns the pids of those still alive after
// killWait. Call it before and after the bash process is reaped: before, it is killed by
// its pidfd; after, only what it left behind is.
func (j *job) kill() []int {
	if j.proc != nil {
		_ = j.proc.Kill() // a no-op once os/exec has reaped it
	}
	if j.pid > 0 {
		_ = syscall.Kill(-j.pid, syscall.SIGKILL)
	}
	r := j.r
	switch r.mode {
	case ModeCgroup:
		left := killCgroup(j.dir, killWait)
		return append(left, r.cg.sweep(r.isLiveJob, r.isTracked)...)
	case ModeSubreaper:
		return r.killOrphans(j)
	default:
		return groupSurvivors(j.pid)
	}
}

// signal sends sig once to every process of the job that the runner's mode can find. In
// subreaper mode the tree is walked from the top while it is intact, each process's children
// read before it is signalled, so none is missed by dying parents.
func (j *job) signal(sig syscall.Signal) error {
	switch j.r.mode {
	case ModeCgroup:
		for _, pid := range subtreeProcs(j.dir) {
			_ = syscall.Kill(pid, sig)
		}
	case ModeSubreaper:
		j.r.signalTree(j, sig)
	default:
		if err := syscall.Kill(-j.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	return nil
}

// busy reports whether a process of the job is still alive, as far as the mode can tell.
func (j *job) busy() bool {
	switch j.r.mode {
	case ModeCgroup:
		return populated(j.dir)
	case ModeSubreaper:
		return len(j.r.signalTree(j, 0)) > 0
	default:
		return len(groupSurvivors(j.pid)) > 0
	}
}

// release forgets the job and removes its cgroup; call it after the last kill.
func (j *job) release() {
	r := j.r
	r.mu.Lock()
	delete(r.jobs, j.id)
	r.mu.Unlock()
	if j.fd != nil {
		_ = j.fd.Close()
	}
	if j.dir != "" {
		_ = removeCgroup(j.dir) // leaves what survivors hold; the next sweep retries
	}
}

func (r *Runner) isLiveJob(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.jobs[id]
	return ok
}

func (r *Runner) isTracked(pid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tracked[pid]
}

// groupSurvivors lists live processes still in process group pgid.
func groupSurvivors(pgid int) []int {
	if pgid <= 0 {
		return nil
	}
	time.Sleep(10 * time.Millisecond)
	procs, _ := allProcs()
	var left []int
	for _, p := range procs {
		if p.PGID == pgid && !p.Dead() {
			left = append(left, p.PID)
		}
	}
	return left
}

// killOrphans, in subreaper mode, kills j's processes round after round until none is left
// or killWait passes, and reaps the adopted ones it killed.
func (r *Runner) killOrphans(j *job) []int {
	deadline := time.Now().Add(killWait)
	for empty := 0; ; {
		live := r.signalTree(j, syscall.SIGKILL)
		r.reapAdopted()
		// One round is a snapshot that a dying process can slip through: its children move
		// to the server after the server's children were read. A process is a zombie only
		// once its children have moved, so the round after one that found only zombies
		// sees them all.
		if len(live) == 0 {
			if empty++; empty == 2 {
				return nil
			}
			continue
		}
		empty = 0
		if time.Now().After(deadline) {
			var left []int
			for _, pid := range live {
				if alive(pid) {
					left = append(left, pid)
				}
			}
			return left
		}
		time.Sleep(time.Millisecond)
	}
}

// signalTree, in subreaper mode, sends sig to j's live processes and returns them: the tree
// under its bash, and the server's children (adopted orphans) tagged with its job id or in
// its process group, with their trees. Orphans found are adopted, to be reaped.
func (r *Runner) signalTree(j *job, sig syscall.Signal) []int {
	tag := JobEnv + "=" + j.id
	var roots []int
	if r.isTracked(j.pid) { // not reaped yet, so the pid is still its bash
		roots = append(roots, j.pid)
	}
	for _, pid := range r.children(r.self) {
		if pid == j.pid || r.isTracked(pid) {
			continue
		}
		if p, err := readStat(pid); err == nil && (j.pid > 0 && p.PGID == j.pid || envHas(pid, tag)) {
			roots = append(roots, pid)
		}
	}
	var live []int
	seen := map[int]bool{}
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[pid] || pid == r.self {
			continue
		}
		seen[pid] = true
		p, err := readStat(pid)
		if err != nil {
			continue
		}
		roots = append(roots, r.children(pid)...)
		if p.PPID == r.self && pid != j.pid {
			r.adopt(pid)
		}
		if !p.Dead() {
			live = append(live, pid)
			_ = syscall.Kill(pid, sig)
		}
	}
	return live
}

func (r *Runner) adopt(pid int) {
	r.mu.Lock()
	if !r.tracked[pid] {
		r.adopted[pid] = true
	}
	r.mu.Unlock()
}

// reapAdopted waits for adopted orphans that have exited. Only pids the runner adopted are
// waited for, never os/exec's own children, whose exit status os/exec must read.
func (r *Runner) reapAdopted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for pid := range r.adopted {
		var ws unix.WaitStatus
		n, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if n == pid || errors.Is(err, unix.ECHILD) {
			delete(r.adopted, pid)
		}
	}
}

// scan, in subreaper mode, adopts the live jobs' orphans as they appear and reaps those that
// exit on their own, so they do not linger as zombies; it stops when no job is left.
func (r *Runner) scan() {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		r.mu.Lock()
		if len(r.jobs) == 0 && len(r.adopted) == 0 {
			r.scanner = false
			r.mu.Unlock()
			return
		}
		tags := make([]string, 0, len(r.jobs))
		pgids := map[int]bool{}
		for id, j := range r.jobs {
			// A job whose bash is forking but not yet recorded is skipped: that bash carries the
			// tag too, and adopting it would steal its exit status from os/exec.
			if j.proc != nil {
				tags = append(tags, JobEnv+"="+id)
				pgids[j.pid] = true // its bash is not reaped yet, so the pid is not reused
			}
		}
		r.mu.Unlock()
		for _, pid := range r.children(r.self) {
			p, err := readStat(pid)
			if err != nil || r.isTracked(pid) {
				continue
			}
			if p.Dead() {
				if pgids[p.PGID] {
					r.adopt(p.PID)
				}
				continue
			}
			for _, tag := range tags {
				if envHas(p.PID, tag) {
					r.adopt(p.PID)
					break
				}
			}
		}
		r.reapAdopted()
	}
}
