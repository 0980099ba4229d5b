// Package runner runs bash command lines so that a timeout, a cancellation or a stop kills
// everything a command started (by cgroup, subreaper or process group: see Mode), and
// captures their output in bounded buffers.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"
)

// Shell is the program that runs command lines.
const Shell = "/bin/bash"

// drainWait bounds how long output is still read once a command has exited or was killed: a
// survivor may hold the pipe open forever, so each pipe is closed at this deadline.
const drainWait = 500 * time.Millisecond

// Spec is a command line and where and how to run it.
type Spec struct {
	Line  string    // run by bash -c
	Dir   string    // working directory
	Env   []string  // the whole environment, NAME=value
	Stdin io.Reader // nil for /dev/null
}

// Result is how a command ended.
type Result struct {
	ExitCode  int           // -1 when killed by a signal
	Signal    string        // the signal that killed it, if one did
	Duration  time.Duration // from start to exit
	Survivors []int         // processes of the command still alive after the kill
}

// Sandbox makes every command start through the sandbox helper of the server binary self,
// restricted by rules, with bash given shellFlags (such as -r) before -c. The rules reach
// the helper in a sealed memfd on its descriptor 3; the helper is first run once in its
// check mode, so rules that cannot be applied fail here, not at every command. Call it
// before the first command runs.
//
// In cgroup containment the cgroup hierarchies are withheld from rules.Write: a command that
// could write there could make a cgroup of its own and move out of the one it is killed by.
func (r *Runner) Sandbox(ctx context.Context, self string, rules sandbox.Rules, shellFlags ...string) error {
	if r.cg != nil {
		w, err := withhold(rules.Write, r.cg.mounts)
		if err != nil {
			return fmt.Errorf("withholding the cgroup tree from commands: %w", err)
		}
		rules.Write = w
	}
	argv, err := sandbox.Command(self, append([]string{Shell}, shellFlags...))
	if err != nil {
		return err
	}
	f, err := rules.File()
	if err != nil {
		return err
	}
	if err := sandbox.Check(ctx, self, f); err != nil {
		_ = f.Close()
		return err
	}
	r.prefix, r.rules = argv, f
	return nil
}

// Sandboxed reports whether commands run through the sandbox helper (Sandbox).
func (r *Runner) Sandboxed() bool { return r.prefix != nil }

func (r *Runner) command(spec Spec) *exec.Cmd {
	argv := append(slices.Clone(r.prefix), "-c", spec.Line)
	if r.prefix == nil {
		argv = []string{Shell, "-c", spec.Line}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if r.rules != nil {
		cmd.ExtraFiles = []*os.File{r.rules} // the helper's sandbox.RulesFD
	}
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	return cmd
}

func result(cmd *exec.Cmd, start time.Time) Result {
	r := Result{ExitCode: -1, Duration: time.Since(start)}
	if cmd.ProcessState == nil {
		return r
	}
	r.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signal = ws.Signal().String()
	}
	return r
}

// copier reads one pipe into a writer until EOF or until its read deadline.
type copier struct {
	r    *os.File
	done chan struct{}
}

func startCopy(r *os.File, w io.Writer) *copier {
	c := &copier{r: r, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		_, _ = io.Copy(w, r)
	}()
	return c
}

// finish gives every copy until drainWait from now to reach EOF, each pipe on its own
// deadline, then closes the pipes.
func finish(cs ...*copier) {
	deadline := time.Now().Add(drainWait)
	for _, c := range cs {
		_ = c.r.SetReadDeadline(deadline)
	}
	for _, c := range cs {
		<-c.done
		_ = c.r.Close()
	}
}

// Run runs spec to completion, writing its output to stdout and stderr. When ctx ends first
// everything the command started is killed; whatever it left running when it exits is
// killed then. Run returns within drainWait of the exit or kill, whatever survivors do.
func (r *Runner) Run(ctx context.Context, spec Spec, stdout, stderr io.Writer) (Result, error) {
	cmd := r.command(spec)
	cmd.Stdin = spec.Stdin
	j, err := r.prepare(cmd)
	if err != nil {
		return Result{}, err
	}
	defer j.release()
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return Result{}, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	j.started(cmd.Process)
	if err != nil {
		outR.Close()
		errR.Close()
		return Result{}, fmt.Errorf("start bash: %w", err)
	}
	copies := []*copier{startCopy(outR, stdout), startCopy(errR, stderr)}
	waited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		j.waited()
		waited <- err
	}()
	var res Result
	select {
	case err = <-waited:
		res = result(cmd, start)
		res.Survivors = j.kill() // what the command left running
	case <-ctx.Done():
		survivors := j.kill()
		select {
		case err = <-waited:
			res = result(cmd, start)
		case <-time.After(killWait):
			// bash is in uninterruptible sleep, or os/exec is still feeding its stdin to a
			// survivor: report it killed without reading the state Wait is still writing.
			err = nil
			res = Result{ExitCode: -1, Signal: syscall.SIGKILL.String(), Duration: time.Since(start)}
			if alive(cmd.Process.Pid) {
				survivors = append(survivors, cmd.Process.Pid)
			}
		}
		res.Survivors = survivors
	}
	finish(copies...)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, err
	}
	return res, nil
}

// Process is a command running in the background.
type Process struct {
	job    *job
	pgid   int
	stdin  *os.File
	inMu   sync.Mutex
	start  time.Time
	done   chan struct{}
	result Result

	stopMu    sync.Mutex
	stopUntil time.Time // while a stop's grace lasts, descendants outliving bash get it too
}

// Start starts spec in the background with its stdout and stderr both written to out, and
// its standard input a pipe fed by Input.
func (r *Runner) Start(spec Spec, out io.Writer) (*Process, error) {
	cmd := r.command(spec)
	j, err := r.prepare(cmd)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		j.release()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		j.release()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	p := &Process{job: j, stdin: inW, start: time.Now(), done: make(chan struct{})}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	j.started(cmd.Process)
	if err != nil {
		inW.Close()
		outR.Close()
		j.release()
		return nil, fmt.Errorf("start bash: %w", err)
	}
	p.pgid = cmd.Process.Pid
	copied := startCopy(outR, out)
	go func() {
		_ = cmd.Wait() // the exit status is in cmd.ProcessState
		j.waited()
		p.stopMu.Lock()
		until := p.stopUntil
		p.stopMu.Unlock()
		for time.Now().Before(until) && j.busy() {
			time.Sleep(10 * time.Millisecond)
		}
		survivors := j.kill()
		j.release()
		finish(copied)
		p.inMu.Lock()
		if p.stdin != nil {
			_ = p.stdin.Close()
			p.stdin = nil
		}
		p.inMu.Unlock()
		p.result = result(cmd, p.start)
		p.result.Survivors = survivors
		close(p.done)
	}()
	return p, nil
}

// Pid is the process id of the bash that runs the command line, also its process group id.
func (p *Process) Pid() int { return p.pgid }

// Started is when the process started.
func (p *Process) Started() time.Time { return p.start }

// Done is closed once the process has exited and its output has been read.
func (p *Process) Done() <-chan struct{} { return p.done }

// Result is how the process ended; valid once Done is closed.
func (p *Process) Result() Result { return p.result }

// Signal sends sig to every process of the command the runner's Mode can find: its process
// group, and in cgroup or subreaper mode also the descendants that left the group.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return errors.New("the process has already exited")
	default:
	}
	return p.job.signal(sig)
}

// Stop sends sig like Signal and lets every process of the command, not only bash, exit
// within grace; the caller kills what is left after grace with Kill.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
	p.stopMu.Lock()
	p.stopUntil = time.Now().Add(grace)
	p.stopMu.Unlock()
	return p.Signal(sig)
}

// Kill kills the process and everything it started, including descendants that left its
// process group, as far as the runner's Mode can find them. The result's Survivors, once
// Done is closed, lists what could not be killed.
func (p *Process) Kill() {
	select {
	case <-p.done:
	default:
		p.job.kill()
	}
}

// ErrInputClosed is returned when input is sent after the process's stdin was closed.
var ErrInputClosed = errors.New("the process's standard input is closed")

// Input writes data to the process's standard input within timeout, then closes it when
// closeAfter is set.
func (p *Process) Input(data string, closeAfter bool, timeout time.Duration) error {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if p.stdin == nil {
		return ErrInputClosed
	}
	if data != "" {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := io.Copy(p.stdin, strings.NewReader(data)); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("the process did not read its input within %s", timeout)
			}
			if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
				return ErrInputClosed
			}
			return err
		}
	}
	if closeAfter {
		err := p.stdin.Close()
		p.stdin = nil
		return err
	}
	return nil
}
