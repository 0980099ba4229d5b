// Package runner runs bash command lines in their own process group, so that a timeout,
// a cancellation or a stop kills everything a command started, and captures their output
// in bounded buffers.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Shell is the program that runs command lines.
const Shell = "/bin/bash"

// drainWait bounds how long output is read after a command's process group was killed; a
// process that left the group (setsid) may hold the pipe open forever.
const drainWait = 2 * time.Second

// Spec is a command line and where and how to run it.
type Spec struct {
	Line  string    // run by bash -c
	Dir   string    // working directory
	Env   []string  // the whole environment, NAME=value
	Stdin io.Reader // nil for /dev/null
}

// Result is how a command ended.
type Result struct {
	ExitCode int           // -1 when killed by a signal
	Signal   string        // the signal that killed it, if one did
	Duration time.Duration // from start to exit
}

func command(spec Spec) *exec.Cmd {
	cmd := exec.Command(Shell, "-c", spec.Line)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	return cmd
}

// killGroup sends SIGKILL to every process in the group pgid.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
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

// copier reads one pipe into a writer until EOF or until the pipe is closed.
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

// finish waits for the copy to reach EOF, closing the pipe after drainWait at the latest.
func finish(cs ...*copier) {
	timer := time.NewTimer(drainWait)
	defer timer.Stop()
	for _, c := range cs {
		select {
		case <-c.done:
		case <-timer.C:
		}
		_ = c.r.Close()
		<-c.done
	}
}

// Run runs spec to completion, writing its output to stdout and stderr. When ctx ends first
// the whole process group is killed. Whatever the command left running in its group is
// killed once it exits.
func Run(ctx context.Context, spec Spec, stdout, stderr io.Writer) (Result, error) {
	cmd := command(spec)
	cmd.Stdin = spec.Stdin
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
	if err != nil {
		outR.Close()
		errR.Close()
		return Result{}, fmt.Errorf("start bash: %w", err)
	}
	pgid := cmd.Process.Pid
	copies := []*copier{startCopy(outR, stdout), startCopy(errR, stderr)}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		killGroup(pgid)
		err = <-waited
	}
	killGroup(pgid)
	finish(copies...)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return result(cmd, start), err
	}
	return result(cmd, start), nil
}

// Process is a command running in the background.
type Process struct {
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	inMu   sync.Mutex
	start  time.Time
	done   chan struct{}
	result Result
}

// Start starts spec in the background with its stdout and stderr both written to out, and
// its standard input a pipe fed by Input.
func Start(spec Spec, out io.Writer) (*Process, error) {
	cmd := command(spec)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	p := &Process{cmd: cmd, stdin: inW, start: time.Now(), done: make(chan struct{})}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start bash: %w", err)
	}
	p.pgid = cmd.Process.Pid
	copied := startCopy(outR, out)
	go func() {
		_ = cmd.Wait() // the exit status is in cmd.ProcessState
		killGroup(p.pgid)
		finish(copied)
		p.inMu.Lock()
		if p.stdin != nil {
			_ = p.stdin.Close()
			p.stdin = nil
		}
		p.inMu.Unlock()
		p.result = result(cmd, p.start)
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

// Signal sends sig to the whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return errors.New("the process has already exited")
	default:
	}
	if err := syscall.Kill(-p.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Kill sends SIGKILL to the whole process group.
func (p *Process) Kill() { killGroup(p.pgid) }

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
