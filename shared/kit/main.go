package kit

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/jck411/mcp-servers/shared/buildinfo"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit/memory"
)

// Main runs a server as a command and returns its exit code: 0 done, 1 failed, 2 bad usage.
func Main(spec Spec) int {
	memory.Limit(os.Getenv, "/proc/self/cgroup", "/sys/fs/cgroup")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, spec, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
}

// Run is Main with its surroundings passed in, so tests can drive the whole command.
func Run(ctx context.Context, spec Spec, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := spec.Commands[args[0]]; ok {
			return cmd(ctx, args[1:], getenv, os.Stdin, stdout, stderr)
		}
		if args[0] == health.CheckCommand { // a container's health check: the image has no curl
			return health.RunCheck(ctx, spec.Name, spec.Port, args[1:], getenv, stdout, stderr)
		}
	}
	cfg, err := config.Parse(spec.Name, spec.Port, args, getenv, stderr, spec.Flags)
	if errors.Is(err, flag.ErrHelp) {
		commandsHelp(ctx, spec, getenv, stderr)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\nRun %s --help for the flags.\n", spec.Name, err, spec.Name)
		return 2
	}
	if cfg.ShowVersion {
		fmt.Fprintf(stdout, "%s %s\n", spec.Name, buildinfo.String())
		return 0
	}
	for _, line := range cfg.Deprecated {
		fmt.Fprintf(stderr, "%s: %s\n", spec.Name, line)
	}
	s, err := New(spec, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", spec.Name, err)
		var ce *ConfigError
		if errors.As(err, &ce) {
			return 2
		}
		return 1
	}
	defer s.Close()
	s.notify = getenv("NOTIFY_SOCKET")

	switch {
	case cfg.ListToolsets:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s.Toolsets()); err != nil {
			return 1
		}
		return 0
	case cfg.ListTools:
		tools, err := s.ListTools(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", spec.Name, err)
			return 1
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"server": spec.Name, "port": spec.Port, "tools": tools}); err != nil {
			return 1
		}
		return 0
	case cfg.Transport == config.TransportStdio:
		s.StartBackground()
		if err := s.RunStdio(ctx); err != nil {
			s.log.Error("stdio transport failed", "error", err.Error())
			return 1
		}
		return 0
	}

	h, err := s.Handler() // reads the tokens file: a bad one stops the server before it listens
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", spec.Name, err)
		return 2 // the tokens file is configuration, like a flag
	}
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		fmt.Fprintf(stderr, "%s: cannot listen on %s: %v (is another instance running? choose another --port)\n", spec.Name, cfg.Addr(), err)
		return 1
	}
	s.StartBackground()
	if err := s.serve(ctx, ln, h); err != nil {
		s.log.Error("server stopped", "error", err.Error())
		return 1
	}
	return 0
}

// commandsHelp ends --help with the server's subcommands, each as it describes itself when
// given --help.
func commandsHelp(ctx context.Context, spec Spec, getenv func(string) string, w io.Writer) {
	if len(spec.Commands) == 0 {
		return
	}
	fmt.Fprintf(w, "\nCommands:\n")
	for _, name := range slices.Sorted(maps.Keys(spec.Commands)) {
		var b strings.Builder
		spec.Commands[name](ctx, []string{"--help"}, getenv, strings.NewReader(""), &b, &b)
		for line := range strings.Lines(b.String()) {
			fmt.Fprintf(w, "  %s", line)
		}
	}
}
