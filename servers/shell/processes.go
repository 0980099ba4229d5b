package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Background process limits.
const (
	processBufferBytes = 1 << 20          // output kept per process; older output is dropped
	processRetention   = 30 * time.Minute // how long a finished process stays listed
	maxStartWait       = 60 * time.Second // how long start_process may wait for output (its schema's maximum)
	inputTimeout       = 5 * time.Second
)

// process is one background command, named by its handle.
type process struct {
	handle  string
	command string
	cwd     string
	owner   string
	proc    *runner.Process
	out     *runner.Ring
	read    atomic.Int64 // the end of the output the tools have returned so far
}

// processTable holds the background processes; it outlives every client connection.
type processTable struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*process
	close sync.Once
}

func newProcessTable(maxProcs int) *processTable {
	return &processTable{max: maxProcs, byID: map[string]*process{}}
}

// add registers a new process, first dropping finished ones past retention, then the oldest
// finished one when the table is full.
func (t *processTable) add(p *process) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reapLocked()
	if len(t.byID) >= t.max {
		var oldest *process
		for _, q := range t.byID {
			if q.finished() && (oldest == nil || q.endTime().Before(oldest.endTime())) {
				oldest = q
			}
		}
		if oldest == nil {
			return kit.Errorf(kit.CodeLimit, "%d background processes are running, the most this server keeps; stop one with stop_process first", t.max)
		}
		delete(t.byID, oldest.handle)
	}
	t.byID[p.handle] = p
	return nil
}

func (t *processTable) reapLocked() {
	for id, p := range t.byID {
		if p.finished() && time.Since(p.endTime()) > processRetention {
			delete(t.byID, id)
		}
	}
}

// get finds the caller's process by handle; another caller's process is reported exactly as
// an unknown handle, so handles cannot be probed.
func (t *processTable) get(handle, caller string) (*process, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.byID[handle]
	if !ok || p.owner != caller {
		return nil, kit.Errorf(kit.CodeNotFound, "no process %q; list_processes shows the handles (finished processes are dropped after %s)", handle, processRetention)
	}
	return p, nil
}

// all lists the caller's processes, oldest first.
func (t *processTable) all(caller string) []*process {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reapLocked()
	out := make([]*process, 0, len(t.byID))
	for _, p := range t.byID {
		if p.owner == caller {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].proc.Started().Before(out[j].proc.Started()) })
	return out
}

// closeAll kills every running process; the server is stopping.
func (t *processTable) closeAll() {
	t.close.Do(func() {
		t.mu.Lock()
		procs := make([]*process, 0, len(t.byID))
		for _, p := range t.byID {
			procs = append(procs, p)
		}
		t.mu.Unlock()
		for _, p := range procs {
			p.proc.Kill()
		}
		for _, p := range procs {
			select {
			case <-p.proc.Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
}

func (p *process) finished() bool {
	select {
	case <-p.proc.Done():
		return true
	default:
		return false
	}
}

func (p *process) endTime() time.Time {
	return p.proc.Started().Add(p.proc.Result().Duration)
}

// processInfo is a process as the tools report it.
type processInfo struct {
	Handle         string  `json:"handle"`
	Command        string  `json:"command"`
	Cwd            string  `json:"cwd"`
	Owner          string  `json:"owner" jsonschema:"the caller that started it"`
	PID            int     `json:"pid"`
	State          string  `json:"state" jsonschema:"running or exited"`
	ExitCode       *int    `json:"exit_code,omitempty"`
	Signal         string  `json:"signal,omitempty"`
	StartedAt      string  `json:"started_at"`
	RuntimeSeconds float64 `json:"runtime_seconds"`
	OutputBytes    int64   `json:"output_bytes" jsonschema:"all output so far; read_process_output pages through it"`
	Survivors      []int   `json:"survivors,omitempty" jsonschema:"pids of its processes still alive after it ended and everything it started was killed"`
}

func (p *process) info() processInfo {
	pi := processInfo{
		Handle: p.handle, Command: p.command, Cwd: p.cwd, Owner: p.owner, PID: p.proc.Pid(),
		State: "running", StartedAt: p.proc.Started().UTC().Format(time.RFC3339),
		RuntimeSeconds: time.Since(p.proc.Started()).Seconds(), OutputBytes: p.out.Total(),
	}
	if p.finished() {
		r := p.proc.Result()
		pi.State, pi.ExitCode, pi.Signal, pi.RuntimeSeconds = "exited", &r.ExitCode, r.Signal, r.Duration.Seconds()
		pi.Survivors = r.Survivors
	}
	pi.RuntimeSeconds = float64(int64(pi.RuntimeSeconds*1000)) / 1000
	return pi
}

func (p *process) status() string { return p.info().status() }

// status says whether the process runs, and how it ended: its exit code or signal.
func (pi processInfo) status() string {
	switch {
	case pi.State == "running":
		return fmt.Sprintf("%s running (pid %d, %.1f s)", pi.Handle, pi.PID, pi.RuntimeSeconds)
	case pi.Signal != "":
		return fmt.Sprintf("%s exited: killed by signal %s (exit_code %d) after %.1f s", pi.Handle, pi.Signal, *pi.ExitCode, pi.RuntimeSeconds)
	default:
		return fmt.Sprintf("%s exited with code %d after %.1f s", pi.Handle, *pi.ExitCode, pi.RuntimeSeconds)
	}
}

func newHandle() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "proc-" + hex.EncodeToString(b)
}

func addProcessTools(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "start_process",
		Toolset:     toolsetProcesses,
		Title:       "Start background process",
		Description: "Start a long-running or interactive command in the background; returns a handle, and with wait_for the first matching output line in context.",
		OpenWorld:   true,
		Timeout:     maxStartWait + 5*time.Second,
	}, sh.startProcess)
	kit.AddTool(s, kit.Tool{
		Name:        "read_process_output",
		Toolset:     toolsetProcesses,
		Title:       "Read process output",
		Description: "Read a background process's output from an offset or its tail, with its state.",
		ReadOnly:    true,
	}, sh.readProcessOutput)
	kit.AddTool(s, kit.Tool{
		Name:        "send_process_input",
		Toolset:     toolsetProcesses,
		Title:       "Send process input",
		Description: "Write to a background process's stdin, optionally closing it; returns the output that follows.",
	}, sh.sendProcessInput)
	kit.AddTool(s, kit.Tool{
		Name:        "stop_process",
		Toolset:     toolsetProcesses,
		Title:       "Stop process",
		Description: "Stop a background process and its children: a signal (default TERM), then KILL; returns unread output.",
		Destructive: true,
		Idempotent:  true,
	}, sh.stopProcess)
	kit.AddTool(s, kit.Tool{
		Name:        "list_processes",
		Toolset:     toolsetProcesses,
		Title:       "List processes",
		Description: "List your background processes: handle, command, state, exit code, times.",
		ReadOnly:    true,
	}, sh.listProcesses)
}

type startProcessInput struct {
	Command     string            `json:"command" jsonschema:"bash command line" schema:"minLength=1"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"default the work directory"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"extra environment variables (not PATH, LD_*)"`
	WaitFor     string            `json:"wait_for,omitempty" jsonschema:"RE2 regex: return once an output line matches"`
	WaitSeconds float64           `json:"wait_seconds,omitempty" jsonschema:"default 0, or 10 with wait_for" schema:"minimum=0,maximum=60"`
}

type processOutput struct {
	Process       processInfo `json:"process"`
	Output        string      `json:"output" jsonschema:"output read, up to the output limit; with wait_for the lines around the match"`
	Offset        int64       `json:"offset" jsonschema:"where output starts in the process's whole output"`
	NextOffset    int64       `json:"next_offset" jsonschema:"pass as offset to read what follows what this call returned"`
	Dropped       int64       `json:"dropped,omitempty" jsonschema:"bytes before offset that were asked for but are no longer kept"`
	More          bool        `json:"more" jsonschema:"more output is available after next_offset"`
	Matched       *bool       `json:"matched,omitempty" jsonschema:"whether wait_for matched"`
	TimedOut      bool        `json:"timed_out,omitempty" jsonschema:"wait_for did not match within wait_seconds"`
	Tail          string      `json:"tail,omitempty" jsonschema:"the last lines so far, when they come after output"`
	TailOffset    int64       `json:"tail_offset,omitempty" jsonschema:"where tail starts"`
	Skipped       int64       `json:"skipped,omitempty" jsonschema:"bytes not shown: not read before, or between output and tail"`
	SkippedOffset int64       `json:"skipped_offset,omitempty" jsonschema:"where the bytes not shown start; read_process_output reads them from there"`
}

// Text shows the output, what it left out and where to read it, and a status line.
func (o processOutput) Text() string {
	var b strings.Builder
	gap := func() {
		if o.Skipped > 0 {
			fmt.Fprintf(&b, "[%d bytes not shown: read_process_output offset %d reads them]\n", o.Skipped, o.SkippedOffset)
		}
	}
	if o.SkippedOffset < o.Offset {
		gap()
	}
	writeLines(&b, o.Output)
	if o.SkippedOffset >= o.Offset && o.Skipped > 0 {
		gap()
	}
	writeLines(&b, o.Tail)
	fmt.Fprintf(&b, "[%s", o.Process.status())
	switch {
	case o.Matched != nil && *o.Matched:
		b.WriteString("; wait_for matched")
	case o.TimedOut:
		b.WriteString("; wait_for timed out without a match")
	case o.Matched != nil:
		b.WriteString("; wait_for did not match before the process exited")
	}
	if o.Output == "" && o.Tail == "" {
		b.WriteString("; no new output")
	} else {
		fmt.Fprintf(&b, "; output bytes %d-%d", o.Offset, o.Offset+int64(len(o.Output)))
		if o.Tail != "" {
			fmt.Fprintf(&b, " and %d-%d", o.TailOffset, o.NextOffset)
		}
		fmt.Fprintf(&b, " of %d", o.Process.OutputBytes)
	}
	if o.Dropped > 0 {
		fmt.Fprintf(&b, "; %d earlier bytes no longer kept", o.Dropped)
	}
	fmt.Fprintf(&b, "; next_offset %d", o.NextOffset)
	if o.More {
		b.WriteString(", more after it")
	}
	b.WriteString("]")
	if len(o.Process.Survivors) > 0 {
		fmt.Fprintf(&b, "\n[still alive after the kill: pids %v]", o.Process.Survivors)
	}
	return b.String()
}

// writeLines writes s, ending it with a newline.
func writeLines(b *strings.Builder, s string) {
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

func (sh *shell) startProcess(ctx context.Context, _ *mcp.CallToolRequest, in startProcessInput) (*mcp.CallToolResult, processOutput, error) {
	var out processOutput
	if strings.TrimSpace(in.Command) == "" {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "command is empty: give a bash command line, e.g. 'python3 -m http.server 8000'")
	}
	var pattern *regexp.Regexp
	wait := time.Duration(in.WaitSeconds * float64(time.Second))
	if in.WaitFor != "" {
		var err error
		if pattern, err = regexp.Compile("(?m)" + in.WaitFor); err != nil {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "wait_for is not a valid RE2 regex: %v", err)
		}
		if wait == 0 {
			wait = 10 * time.Second
		}
	}
	wd, env, err := sh.prepare(in.Cwd, in.Env)
	if err != nil {
		return nil, out, err
	}
	defer wd.close()
	dir := wd.path
	// Its standard input is what send_process_input sends later, which the policy never sees:
	// a shell or interpreter reading its commands from it is refused (policy.CheckInput).
	if err := sh.check(ctx, "start_process", in.Command, dir, true); err != nil {
		return nil, out, err
	}
	ring := runner.NewRing(processBufferBytes)
	proc, err := sh.runner.Start(runner.Spec{Line: in.Command, Dir: wd.chdir(), Env: env}, ring)
	if err != nil {
		return nil, out, kit.Errorf(kit.CodeInternal, "starting the process failed: %w", err)
	}
	p := &process{handle: newHandle(), command: in.Command, cwd: dir, owner: kit.Caller(ctx), proc: proc, out: ring}
	if err := sh.procs.add(p); err != nil {
		proc.Kill()
		<-proc.Done()
		return nil, out, err
	}
	sh.log.Info("process started", "tool", "start_process", "caller", p.owner, "handle", p.handle, "pid", proc.Pid(),
		"command", in.Command, "cwd", dir, "env", envNames(in.Env), "policy", sh.policy.Decision(nil))
	go func() {
		<-proc.Done()
		r := proc.Result()
		sh.log.Info("process exited", "handle", p.handle, "caller", p.owner, "exit_code", r.ExitCode, "signal", r.Signal,
			"duration_ms", float64(r.Duration.Microseconds())/1000, "survivors", r.Survivors)
	}()

	if pattern == nil {
		sh.waitOutput(ctx, p, wait)
		return nil, sh.excerpt(p, false, nil), nil
	}
	match := sh.waitMatch(ctx, p, pattern, wait)
	out = sh.excerpt(p, true, match)
	matched := match != nil
	out.Matched = &matched
	out.TimedOut = !matched && !p.finished()
	return nil, out, nil
}

// waitOutput waits until wait passes, the process exits, or ctx ends.
func (sh *shell) waitOutput(ctx context.Context, p *process, wait time.Duration) {
	if wait <= 0 {
		return
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	select {
	case <-ctx.Done():
	case <-deadline.C:
	case <-p.proc.Done():
	}
}

// waitMatch waits until the output matches pattern, wait passes, the process exits, or ctx
// ends; it returns where the first match is in the whole output, or nil. Each pass reads on
// from the start of the last line it saw incomplete, so a long output is scanned once.
func (sh *shell) waitMatch(ctx context.Context, p *process, pattern *regexp.Regexp, wait time.Duration) []int64 {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var from int64
	scan := func() []int64 {
		data, start := p.out.Read(from, processBufferBytes)
		if loc := pattern.FindIndex(data); loc != nil {
			return []int64{start + int64(loc[0]), start + int64(loc[1])}
		}
		from = start + int64(bytes.LastIndexByte(data, '\n')+1)
		return nil
	}
	for {
		if m := scan(); m != nil {
			return m
		}
		select {
		case <-ctx.Done():
			return nil
		case <-deadline.C:
			return nil
		case <-p.proc.Done():
			return scan()
		case <-tick.C:
		}
	}
}

// excerpt is start_process's answer: with wait_for's match, the lines around it and the last
// lines after them; else all the output when it is short, or without wait_for its first and
// last lines, or after a wait_for that did not match its last lines.
func (sh *shell) excerpt(p *process, waited bool, match []int64) processOutput {
	data, base := p.out.Read(0, processBufferBytes)
	total := base + int64(len(data))
	var start, end int
	switch {
	case match != nil && match[0] >= base:
		start, end = aroundMatch(data, int(match[0]-base), int(match[1]-base))
	case len(data) <= wholeBytes:
		start, end = 0, len(data)
	case !waited && base == 0:
		start, end = 0, headEnd(data)
	default: // the match, or the output's beginning, is no longer kept: the end is what matters
		start, end = tailStart(data), len(data)
	}
	o := processOutput{Process: p.info(), Output: string(data[start:end]), Offset: base + int64(start), NextOffset: base + int64(end)}
	if rest := data[end:]; len(rest) > 0 {
		t := end + tailStart(rest)
		o.Tail, o.TailOffset, o.NextOffset = string(data[t:]), base+int64(t), total
		if t > end {
			o.Skipped, o.SkippedOffset = int64(t-end), base+int64(end)
		}
	}
	o.More = o.NextOffset < p.out.Total()
	p.markRead(o.NextOffset)
	return o
}

// markRead records that the tools have returned the output up to next.
func (p *process) markRead(next int64) {
	for {
		cur := p.read.Load()
		if next <= cur || p.read.CompareAndSwap(cur, next) {
			return
		}
	}
}

// output reads up to the output limit from offset, or the last tail bytes when tail > 0.
func (sh *shell) output(p *process, offset int64, tail int) processOutput {
	var data []byte
	var start int64
	if tail > 0 {
		data, start = p.out.Tail(min(tail, sh.outputLimit))
	} else {
		data, start = p.out.Read(offset, sh.outputLimit)
	}
	next := start + int64(len(data))
	o := processOutput{Process: p.info(), Output: string(data), Offset: start, NextOffset: next, More: next < p.out.Total()}
	if tail == 0 && start > offset {
		o.Dropped = start - offset
	}
	p.markRead(next)
	return o
}

type readProcessOutputInput struct {
	Handle string `json:"handle" jsonschema:"the handle start_process returned"`
	Offset int64  `json:"offset,omitempty" jsonschema:"byte offset, e.g. next_offset" schema:"minimum=0"`
	Tail   int    `json:"tail,omitempty" jsonschema:"last this many bytes instead" schema:"minimum=0"`
}

func (sh *shell) readProcessOutput(ctx context.Context, _ *mcp.CallToolRequest, in readProcessOutputInput) (*mcp.CallToolResult, processOutput, error) {
	p, err := sh.procs.get(in.Handle, kit.Caller(ctx))
	if err != nil {
		return nil, processOutput{}, err
	}
	return nil, sh.output(p, in.Offset, in.Tail), nil
}

type sendProcessInputInput struct {
	Handle      string  `json:"handle" jsonschema:"the handle start_process returned"`
	Input       string  `json:"input,omitempty" jsonschema:"text for stdin; \\n ends a line"`
	CloseStdin  bool    `json:"close_stdin,omitempty" jsonschema:"close stdin after writing"`
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"seconds to wait for output" schema:"minimum=0,maximum=10,default=0.5"`
}

func (sh *shell) sendProcessInput(ctx context.Context, _ *mcp.CallToolRequest, in sendProcessInputInput) (*mcp.CallToolResult, processOutput, error) {
	var out processOutput
	if in.Input == "" && !in.CloseStdin {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "give input to send, or close_stdin")
	}
	if len(in.Input) > maxStdinBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "input is %d bytes; at most %d", len(in.Input), maxStdinBytes)
	}
	p, err := sh.procs.get(in.Handle, kit.Caller(ctx))
	if err != nil {
		return nil, out, err
	}
	if p.finished() {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s; it takes no more input", p.status())
	}
	before := p.out.Total()
	if err := p.proc.Input(in.Input, in.CloseStdin, inputTimeout); err != nil {
		return nil, out, kit.Errorf(kit.CodeUnavailable, "%s: %v", p.handle, err)
	}
	wait := time.Duration(in.WaitSeconds * float64(time.Second))
	sh.waitQuiet(ctx, p, before, wait)
	return nil, sh.output(p, before, 0), nil
}

// waitQuiet waits up to wait for output after offset, returning early once output has
// arrived and then stayed quiet for a moment, or the process exited.
func (sh *shell) waitQuiet(ctx context.Context, p *process, offset int64, wait time.Duration) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	last, quiet := offset, 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-p.proc.Done():
			return
		case <-tick.C:
		}
		total := p.out.Total()
		if total > offset && total == last {
			if quiet++; quiet >= 3 {
				return
			}
			continue
		}
		last, quiet = total, 0
	}
}

var signals = map[string]syscall.Signal{
	"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP, "KILL": syscall.SIGKILL,
	"QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
}

type stopProcessInput struct {
	Handle       string  `json:"handle" jsonschema:"the handle start_process returned"`
	Signal       string  `json:"signal,omitempty" jsonschema:"the signal to send first" schema:"enum=TERM|INT|HUP|QUIT|USR1|USR2|KILL,default=TERM"`
	GraceSeconds float64 `json:"grace_seconds,omitempty" jsonschema:"seconds after the signal before KILL" schema:"minimum=0,maximum=30,default=5"`
}

func (sh *shell) stopProcess(ctx context.Context, _ *mcp.CallToolRequest, in stopProcessInput) (*mcp.CallToolResult, processOutput, error) {
	var out processOutput
	name := in.Signal
	sig, ok := signals[name]
	if !ok { // the schema admits only the names in signals; a mismatch is a bug, not a no-op signal 0
		return nil, out, kit.Errorf(kit.CodeInternal, "signal %q is in the schema but not in the signal table", name)
	}
	grace := time.Duration(in.GraceSeconds * float64(time.Second))
	p, err := sh.procs.get(in.Handle, kit.Caller(ctx))
	if err != nil {
		return nil, out, err
	}
	if !p.finished() {
		sh.log.Info("process stopping", "tool", "stop_process", "caller", kit.Caller(ctx), "handle", p.handle, "signal", name)
		_ = p.proc.Stop(sig, grace)
		select {
		case <-p.proc.Done():
		case <-time.After(grace):
			p.proc.Kill()
		case <-ctx.Done():
			p.proc.Kill()
		}
		select {
		case <-p.proc.Done():
		case <-time.After(5 * time.Second):
			return nil, out, kit.Errorf(kit.CodeUnavailable, "%s was killed but has not exited yet; check list_processes", p.handle)
		}
	}
	return nil, sh.unread(p), nil
}

// unread is stop_process's answer: the output no call has returned yet, its last lines when
// there is much of it.
func (sh *shell) unread(p *process) processOutput {
	from := p.read.Load()
	data, base := p.out.Read(from, processBufferBytes)
	start := 0
	if len(data) > wholeBytes {
		start = tailStart(data)
	}
	o := processOutput{Process: p.info(), Output: string(data[start:]), Offset: base + int64(start), NextOffset: base + int64(len(data))}
	if base > from {
		o.Dropped = base - from
	}
	if start > 0 {
		o.Skipped, o.SkippedOffset = int64(start), base
	}
	p.markRead(o.NextOffset)
	return o
}

type listProcessesInput struct{}

type listProcessesOutput struct {
	Processes []processInfo `json:"processes"`
}

// Text is one line per process.
func (o listProcessesOutput) Text() string {
	if len(o.Processes) == 0 {
		return "no background processes"
	}
	var b strings.Builder
	for _, p := range o.Processes {
		state := p.State
		if p.ExitCode != nil {
			state = fmt.Sprintf("exited %d", *p.ExitCode)
		}
		fmt.Fprintf(&b, "%s\t%s\t%.1fs\t%s\t%s\n", p.Handle, state, p.RuntimeSeconds, p.Owner, p.Command)
	}
	return b.String()
}

func (sh *shell) listProcesses(ctx context.Context, _ *mcp.CallToolRequest, _ listProcessesInput) (*mcp.CallToolResult, listProcessesOutput, error) {
	out := listProcessesOutput{Processes: []processInfo{}}
	for _, p := range sh.procs.all(kit.Caller(ctx)) {
		out.Processes = append(out.Processes, p.info())
	}
	return nil, out, nil
}
