// Command shell is the fleet's shell MCP server (port 9001): run commands, keep long-running
// processes and read and write text files on the host, within limits fixed at start.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/kit"
)

func main() {
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(serve())
}

// serve runs the server. Descriptors it inherited (anything above 2 its parent left open)
// are first marked close-on-exec, so no command, sandboxed or not, inherits them; the
// server's own files are opened close-on-exec by Go.
func serve() int {
	if err := sandbox.CloseOnExec(3); err != nil {
		fmt.Fprintf(os.Stderr, "shell: marking inherited descriptors close-on-exec: %v\n", err)
		return 1
	}
	return kit.Main(spec())
}

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
		Instructions: "Commands run as an unprivileged user under a command policy; file tools are confined to the allowed roots.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "handle", Meaning: "the handle start_process returned", Short: "from start_process"},
		},
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
			addResources(s, sh)
			addPrompts(s)
			s.OnClose(sh.roots.Close)
			s.OnClose(sh.enforce.close)
			s.OnClose(sh.runner.Close)
			s.OnClose(sh.procs.closeAll) // runs first
			return nil
		},
	}
}
