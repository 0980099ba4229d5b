package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/resolver"
	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
)

// shell is the server's state: the limits fixed at start and the background processes.
type shell struct {
	log          *slog.Logger
	policy       *policy.Policy
	roots        *resolver.Roots
	env          runner.Environment
	home         string // the home directory, which delete_path and move_path refuse like rm -r does
	workDir      string
	slots        chan struct{}
	procs        *processTable
	runner       *runner.Runner
	toolVersions []string
	outputLimit  int
	enforce      *enforcement
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// newShell validates the flags and builds the server's state.
func newShell(s *kit.Server, st *settings) (*shell, error) {
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
	workDir, err := filepath.EvalSymlinks(workDir)
	if err != nil {
		return nil, fmt.Errorf("--work-dir: %w", err)
	}
	rootList := config.SplitList(st.allowedRoots)
	if len(rootList) == 0 {
		rootList = []string{workDir}
	}
	roots, err := resolver.New(rootList)
	if err != nil {
		return nil, fmt.Errorf("--allowed-roots: %w", err)
	}
	if !roots.Contains(workDir) {
		roots.Close()
		return nil, fmt.Errorf("--work-dir %s is outside --allowed-roots %s", workDir, strings.Join(roots.Dirs(), ","))
	}
	home, name := workDir, "nobody"
	if u, err := user.Current(); err == nil {
		name = u.Username
		if info, err := os.Stat(u.HomeDir); err == nil && info.IsDir() {
			home = u.HomeDir
		}
	}
	pol, err := policy.New(policy.Mode(st.policy), config.SplitList(st.allowCommands), policy.Home(home), policy.FollowSymlinks())
	if err != nil {
		return nil, fmt.Errorf("--policy/--allow-commands: %w", err)
	}
	run, err := runner.New(st.containment)
	if err != nil {
		roots.Close()
		return nil, fmt.Errorf("--containment: %w", err)
	}
	log := s.Logger()
	log.Info("containment", "mode", run.Mode(), "note", run.Note())
	enf, err := setupEnforcement(context.Background(), log, run, enforcementInput{
		policy: pol, roots: roots.Dirs(), path: os.Getenv("PATH"), home: home,
		protected: protectedPaths(s.Config().StateDir, s.Config().AuthTokensFile),
		self:      selfExe(), systemd: os.Getenv("INVOCATION_ID") != "",
	})
	if err != nil {
		run.Close()
		roots.Close()
		return nil, err
	}
	log.Info("kernel enforcement", "mode", enf.mode, "note", enf.note)
	path, tmp := os.Getenv("PATH"), os.Getenv("TMPDIR")
	if enf.path != "" {
		path = enf.path
	}
	if enf.tmpDir != "" {
		tmp = enf.tmpDir
	}
	return &shell{
		runner:       run,
		enforce:      enf,
		log:          log,
		policy:       pol,
		roots:        roots,
		env:          runner.NewEnvironment(path, home, name, tmp),
		home:         home,
		workDir:      workDir,
		slots:        make(chan struct{}, st.maxConcurrent),
		procs:        newProcessTable(st.maxProcesses),
		toolVersions: versions,
		outputLimit:  st.outputLimit,
	}, nil
}

// selfExe is the server's own binary, which runs the sandbox helper; "" when unknown, which
// makes confinement fail with a clear error when it is needed.
func selfExe() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// protectedPaths are what no command may change: the server's binary, its state directory
// (and the fleet's, when it is the default ~/.local/state/mcp-servers/NAME) and its token file.
func protectedPaths(stateDir, tokens string) []string {
	var out []string
	for _, p := range []string{selfExe(), stateDir, tokens} {
		if p == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, p)
	}
	if stateDir != "" && filepath.Base(filepath.Dir(stateDir)) == "mcp-servers" {
		out = append(out, filepath.Dir(stateDir))
	}
	return out
}
