// Command shell is the fleet's shell MCP server (port 9001): run commands, keep long-running
// processes and read and write text files on the host, within limits fixed at start.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/confine"
	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the shell server's own flags.
type settings struct {
	policy        string
	allowCommands string
	allowedRoots  string
	workDir       string
	maxConcurrent int
	maxProcesses  int
	toolVersions  string
	outputLimit   int
	containment   string
}

// spec describes the shell server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "shell",
		Title:        "Shell",
		Port:         9001,
		Instructions: "Run commands on the host with run_command (bash -c; pipes and redirects work); use start_process for anything long-running or interactive and poll it with read_process_output. Commands run as an unprivileged user under a command policy; file tools are confined to the allowed roots.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.policy, "policy", string(policy.Blocklist), "command policy: blocklist (refuse destructive patterns), allowlist (only --allow-commands) or off")
			fs.StringVar(&st.allowCommands, "allow-commands", "", "comma-separated programs the allowlist policy runs, e.g. git,ls,cat")
			fs.StringVar(&st.allowedRoots, "allowed-roots", "", "comma-separated directories working directories and file tools are confined to (default: the work directory)")
			fs.StringVar(&st.workDir, "work-dir", "", "default working directory, created 0700 (default: STATE-DIR/work)")
			fs.IntVar(&st.maxConcurrent, "max-concurrent", 8, "commands run_command runs at once; more wait for a slot")
			fs.IntVar(&st.maxProcesses, "max-processes", 16, "background processes kept at once, running or finished")
			fs.StringVar(&st.toolVersions, "tool-versions", "bash,git,python3,go,node", "comma-separated programs whose versions get_environment reports")
			fs.IntVar(&st.outputLimit, "output-limit", 64<<10, "bytes kept of each output stream per call; the middle of longer output is cut")
			fs.StringVar(&st.containment, "containment", "auto", "how everything a command starts is found and killed: cgroup (a cgroup v2 per command; needs a writable cgroup tree, e.g. systemd Delegate=yes), subreaper (orphans reparent to the server), or auto (cgroup, else subreaper)")
		},
		Setup: func(s *kit.Server) error {
			sh, err := newShell(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			addRunCommand(s, sh)
			addProcessTools(s, sh)
			addGetEnvironment(s, sh)
			addFileTools(s, sh)
			s.OnClose(sh.runner.Close)
			s.OnClose(sh.procs.closeAll) // runs first
			return nil
		},
	}
}

// shell is the server's state: the limits fixed at start and the background processes.
type shell struct {
	log          *slog.Logger
	policy       *policy.Policy
	roots        *confine.Roots
	env          runner.Environment
	workDir      string
	slots        chan struct{}
	procs        *processTable
	runner       *runner.Runner
	toolVersions []string
	outputLimit  int
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// newShell validates the flags and builds the server's state.
func newShell(s *kit.Server, st *settings) (*shell, error) {
	pol, err := policy.New(policy.Mode(st.policy), config.SplitList(st.allowCommands))
	if err != nil {
		return nil, fmt.Errorf("--policy/--allow-commands: %w", err)
	}
	switch {
	case st.maxConcurrent < 1 || st.maxConcurrent > 256:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 256", st.maxConcurrent)
	case st.maxProcesses < 1 || st.maxProcesses > 1024:
		return nil, fmt.Errorf("--max-processes %d: give 1 to 1024", st.maxProcesses)
	case st.outputLimit < 1024 || st.outputLimit > 16<<20:
		return nil, fmt.Errorf("--output-limit %d: give 1024 to 16777216 bytes", st.outputLimit)
	}
	versions := config.SplitList(st.toolVersions)
	for _, t := range versions {
		if !toolName.MatchString(t) {
			return nil, fmt.Errorf("--tool-versions: %q is not a program name", t)
		}
	}
	workDir := st.workDir
	if workDir == "" {
		workDir = filepath.Join(s.Config().StateDir, "work")
	}
	if !filepath.IsAbs(workDir) {
		return nil, fmt.Errorf("--work-dir %q: give an absolute path", workDir)
	}
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		return nil, fmt.Errorf("--work-dir: %w", err)
	}
	if workDir, err = filepath.EvalSymlinks(workDir); err != nil {
		return nil, fmt.Errorf("--work-dir: %w", err)
	}
	rootList := config.SplitList(st.allowedRoots)
	if len(rootList) == 0 {
		rootList = []string{workDir}
	}
	roots, err := confine.New(rootList)
	if err != nil {
		return nil, fmt.Errorf("--allowed-roots: %w", err)
	}
	if !roots.Contains(workDir) {
		return nil, fmt.Errorf("--work-dir %s is outside --allowed-roots %s", workDir, strings.Join(roots.Dirs(), ","))
	}
	home, name := workDir, "nobody"
	if u, err := user.Current(); err == nil {
		name = u.Username
		if info, err := os.Stat(u.HomeDir); err == nil && info.IsDir() {
			home = u.HomeDir
		}
	}
	run, err := runner.New(st.containment)
	if err != nil {
		return nil, fmt.Errorf("--containment: %w", err)
	}
	log := s.Logger()
	log.Info("containment", "mode", run.Mode(), "note", run.Note())
	return &shell{
		runner:       run,
		log:          log,
		policy:       pol,
		roots:        roots,
		env:          runner.NewEnvironment(os.Getenv("PATH"), home, name, os.Getenv("TMPDIR")),
		workDir:      workDir,
		slots:        make(chan struct{}, st.maxConcurrent),
		procs:        newProcessTable(st.maxProcesses, log),
		toolVersions: versions,
		outputLimit:  st.outputLimit,
	}, nil
}

// dir resolves a working directory argument inside the allowed roots; "" is the work directory.
func (sh *shell) dir(p string) (string, error) {
	if p == "" {
		return sh.workDir, nil
	}
	real, err := sh.roots.Resolve(p, sh.workDir)
	if err != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "working directory: %w", err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", kit.Errorf(kit.CodeNotFound, "working directory %s does not exist", p)
	}
	if !info.IsDir() {
		return "", kit.Errorf(kit.CodeInvalidInput, "working directory %s is not a directory", p)
	}
	return real, nil
}

// path resolves a file path argument inside the allowed roots, relative to the work directory.
func (sh *shell) path(p string) (string, error) {
	real, err := sh.roots.Resolve(p, sh.workDir)
	if err != nil {
		var oe *confine.OutsideError
		if errors.As(err, &oe) {
			return "", kit.Errorf(kit.CodeInvalidInput, "%w", err)
		}
		return "", kit.Errorf(kit.CodeInvalidInput, "path %s: %w", p, err)
	}
	return real, nil
}
