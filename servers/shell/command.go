package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Command timeouts: run_command's own limit (the maximum of timeout_seconds in its schema,
// which TestSchemaLimits holds equal to this) stays under the tool timeout, which stays under
// the 89 s every tool must finish within.
const (
	maxCommandTimeout = 85 * time.Second
	maxStdinBytes     = 1 << 20
)

type runCommandInput struct {
	Command        string            `json:"command" jsonschema:"bash command line (bash -c)" schema:"minLength=1"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"default the work directory"`
	TimeoutSeconds float64           `json:"timeout_seconds,omitempty" jsonschema:"seconds before the command is killed" schema:"minimum=0.1,maximum=85,default=30"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables (not PATH, LD_*)"`
	Stdin          string            `json:"stdin,omitempty" jsonschema:"text for standard input"`
}

type runCommandOutput struct {
	ExitCode    int     `json:"exit_code" jsonschema:"the exit status; -1 when killed by a signal"`
	Signal      string  `json:"signal,omitempty" jsonschema:"the signal that killed the command"`
	Stdout      string  `json:"stdout"`
	Stderr      string  `json:"stderr"`
	StdoutBytes int64   `json:"stdout_bytes" jsonschema:"the whole stdout's length; more than stdout when its middle was cut"`
	StderrBytes int64   `json:"stderr_bytes"`
	Truncated   bool    `json:"truncated" jsonschema:"output was cut; a marker in it says how many bytes"`
	DurationMS  float64 `json:"duration_ms"`
	TimedOut    bool    `json:"timed_out"`
	Cwd         string  `json:"cwd"`
	Survivors   []int   `json:"survivors,omitempty" jsonschema:"pids of processes the command started that were still alive after everything was killed"`
	Note        string  `json:"note,omitempty" jsonschema:"a limit of the server's process containment that applies to this result"`
}

// Text renders the result as a terminal would show it, with the exit status.
func (o runCommandOutput) Text() string {
	var b strings.Builder
	b.WriteString(o.Stdout)
	if o.Stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(o.Stdout, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("[stderr]\n")
		b.WriteString(o.Stderr)
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	switch {
	case o.TimedOut && len(o.Survivors) == 0:
		fmt.Fprintf(&b, "[timed out after %.1f s; the command and its children were killed]", o.DurationMS/1000)
	case o.TimedOut:
		fmt.Fprintf(&b, "[timed out after %.1f s; the command was killed]", o.DurationMS/1000)
	case o.Signal != "":
		fmt.Fprintf(&b, "[killed by %s]", o.Signal)
	default:
		fmt.Fprintf(&b, "[exit %d]", o.ExitCode)
	}
	if len(o.Survivors) > 0 {
		fmt.Fprintf(&b, "\n[still alive after the kill: pids %v]", o.Survivors)
	}
	if o.Note != "" {
		fmt.Fprintf(&b, "\n[%s]", o.Note)
	}
	return b.String()
}

func addRunCommand(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "run_command",
		Toolset:     toolsetCommands,
		Title:       "Run command",
		Description: "Run a bash command line; returns exit code, stdout and stderr. Over 85 s or interactive: start_process.",
		Destructive: true,
		OpenWorld:   true,
		Timeout:     maxCommandTimeout + 3*time.Second,
	}, sh.runCommand)
}

func (sh *shell) runCommand(ctx context.Context, req *mcp.CallToolRequest, in runCommandInput) (*mcp.CallToolResult, runCommandOutput, error) {
	var out runCommandOutput
	if strings.TrimSpace(in.Command) == "" {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "command is empty: give a bash command line, e.g. 'ls -la'")
	}
	timeout := time.Duration(in.TimeoutSeconds * float64(time.Second)) // the schema bounds it to maxCommandTimeout
	if len(in.Stdin) > maxStdinBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "stdin is %d bytes; at most %d (write a file with write_text_file and redirect it instead)", len(in.Stdin), maxStdinBytes)
	}
	wd, env, err := sh.prepare(in.Cwd, in.Env)
	if err != nil {
		return nil, out, err
	}
	defer wd.close()
	dir := wd.path
	caller := kit.Caller(ctx)
	ownerAllowed, err := sh.checkOrAsk(ctx, req, in.Command, dir, in.Stdin != "")
	if err != nil {
		return nil, out, err
	}
	select {
	case sh.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, out, kit.Errorf(kit.CodeLimit, "all %d command slots stayed busy; try again when fewer commands are running", cap(sh.slots))
	}
	defer func() { <-sh.slots }()

	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := runner.NewCapture(sh.outputLimit), runner.NewCapture(sh.outputLimit)
	spec := runner.Spec{Line: in.Command, Dir: wd.chdir(), Env: env}
	if in.Stdin != "" {
		spec.Stdin = strings.NewReader(in.Stdin)
	}
	progress.From(ctx).Status(func() string { return progress.Size(stdout.Total()+stderr.Total()) + " of output" })
	res, err := sh.runner.Run(cctx, spec, stdout, stderr)
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	decision := sh.policy.Decision(nil)
	if ownerAllowed {
		decision = "allowed-by-owner"
	}
	attrs := []any{"tool", "run_command", "caller", caller, "command", in.Command, "cwd", dir,
		"env", envNames(in.Env), "exit_code", res.ExitCode, "signal", res.Signal, "timed_out", timedOut,
		"duration_ms", float64(res.Duration.Microseconds()) / 1000, "survivors", res.Survivors, "policy", decision}
	if cause := kit.StopCause(ctx); cause != nil && !errors.Is(cause, context.DeadlineExceeded) {
		attrs = append(attrs, "cancelled", cause.Error()) // killed because the call was cancelled
	}
	sh.log.Info("command", attrs...)
	if err != nil {
		return nil, out, kit.Errorf(kit.CodeInternal, "running the command failed: %w", err)
	}
	if ctx.Err() != nil {
		return nil, out, ctx.Err()
	}
	out = runCommandOutput{
		ExitCode:    res.ExitCode,
		Signal:      res.Signal,
		Stdout:      stdout.String(),
		Stderr:      stderr.String(),
		StdoutBytes: stdout.Total(),
		StderrBytes: stderr.Total(),
		Truncated:   stdout.Cut() > 0 || stderr.Cut() > 0,
		DurationMS:  float64(res.Duration.Microseconds()) / 1000,
		TimedOut:    timedOut,
		Cwd:         dir,
		Survivors:   res.Survivors,
	}
	if sh.runner.Mode() == runner.ModeGroup {
		out.Note = "containment is only the process group: descendants that called setsid or setpgid were not tracked and may still run"
	}
	return nil, out, nil
}

// prepare resolves and opens a command's working directory inside the roots, and builds its
// environment. The caller closes the directory once the command has started.
func (sh *shell) prepare(cwd string, extra map[string]string) (workingDir, []string, error) {
	dir, err := sh.workingDir(cwd)
	if err != nil {
		return workingDir{}, nil, err
	}
	for name, value := range extra {
		if err := sh.policy.CheckEnv(name); err != nil {
			dir.close()
			return workingDir{}, nil, kit.Errorf(kit.CodeInvalidInput, "env: %w", err)
		}
		if err := sh.policy.CheckEnvValue(name, value); err != nil {
			dir.close()
			return workingDir{}, nil, kit.Errorf(kit.CodeInvalidInput, "env: %w", err)
		}
	}
	env, err := sh.env.With(extra)
	if err != nil {
		dir.close()
		return workingDir{}, nil, kit.Errorf(kit.CodeInvalidInput, "env: %w", err)
	}
	return dir, env, nil
}

// check applies the policy and audits a refusal; allowed commands are audited when they end.
// input is true when the command's standard input carries the caller's text (run_command's
// stdin, or a background process's input sent later).
func (sh *shell) check(ctx context.Context, tool, line, dir string, input bool) error {
	check := sh.policy.Check
	if input {
		check = sh.policy.CheckInput
	}
	err := check(line, dir)
	if err == nil {
		return nil
	}
	sh.log.Warn("command refused", "tool", tool, "caller", kit.Caller(ctx), "command", line, "cwd", dir,
		"policy", sh.policy.Decision(err))
	return kit.Errorf(kit.CodeInvalidInput, "%w. The server's command policy is fixed at start; if this was intended, ask the operator", err)
}

// envNames lists the names of extra variables for the audit log; values are never logged.
func envNames(env map[string]string) []string {
	names := make([]string, 0, len(env))
	for n := range env {
		names = append(names, n)
	}
	return names
}
