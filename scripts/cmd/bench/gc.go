package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/scripts/internal/proc"
)

// gcSetting is one collector setting a server is measured under: environment variables added to
// the bench's own (none for "default": the settings kit.Main gives a server by itself).
type gcSetting struct {
	name string
	env  []string
}

// gcSettings is the -gc flag's value.
type gcSettings []gcSetting

func (g *gcSettings) String() string {
	names := make([]string, len(*g))
	for i, s := range *g {
		names[i] = s.name
	}
	return strings.Join(names, ";")
}

// Set reads "default;GOGC=400;GOGC=800,GOMEMLIMIT=16MiB".
func (g *gcSettings) Set(v string) error {
	for part := range strings.SplitSeq(v, ";") {
		part = strings.TrimSpace(part)
		if part == "default" {
			*g = append(*g, gcSetting{name: part})
			continue
		}
		s := gcSetting{name: part}
		for kv := range strings.SplitSeq(part, ",") {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || (k != "GOGC" && k != "GOMEMLIMIT") {
				return fmt.Errorf("%q: give default or GOGC=... and GOMEMLIMIT=..., comma-separated", part)
			}
			s.env = append(s.env, kv)
		}
		*g = append(*g, s)
	}
	return nil
}

// gcRun measures one server under several collector settings side by side: CPU per call and
// calls per second with 1 and 16 clients, anonymous memory right after the 16-client load and
// after a quiet spell. Each setting is its own process; they take the load in turn, like the
// targets of the default run, so that load from elsewhere falls on all of them alike.
type gcRun struct {
	settings                gcSettings
	bin, server, tool, args string
	serverArgs, setup, site string
	duration, quiet         time.Duration
	rounds                  int
	sdk                     bool
}

func (g *gcRun) run() error {
	path, err := filepath.Abs(filepath.Join(g.bin, g.server))
	if err != nil {
		return err
	}
	siteURL := ""
	if g.site != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: http.FileServer(http.Dir(g.site)), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		siteURL = "http://" + ln.Addr().String()
	}
	site := strings.NewReplacer("SITE", siteURL)
	body := callBody(g.tool, site.Replace(g.args))
	var setup []byte
	if g.setup != "" {
		tool, args, ok := strings.Cut(g.setup, " ")
		if !ok {
			return errors.New(`-setup: give "TOOL {JSON arguments}"`)
		}
		setup = callBody(tool, site.Replace(args))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var names []string
	var argvs, envs [][]string
	for _, s := range g.settings {
		env := append(os.Environ(), s.env...)
		if g.sdk {
			names = append(names, "go-sdk, "+s.name)
			argvs = append(argvs, []string{self, "-sdk", "ADDR"})
			envs = append(envs, env)
		}
		argv := []string{path, "--port", "PORT", "--state-dir", ""}
		if g.serverArgs != "" {
			argv = append(argv, strings.Fields(site.Replace(g.serverArgs))...)
		}
		names = append(names, g.server+", "+s.name)
		argvs = append(argvs, argv)
		envs = append(envs, env)
	}

	fmt.Printf("bench: %s %s under %d settings, %s of load per client count in %d slices; load average %s\n",
		g.server, g.tool, len(g.settings), g.duration, g.rounds, loadAverage())
	var rows [][]string
	for _, clients := range []int{1, 16} {
		dirs, err := stateDirs(argvs)
		if err != nil {
			return err
		}
		res, running, err := compare(names, cloneArgv(argvs), envs, setup, body, clients, g.duration, g.rounds)
		if err != nil {
			stopAll(running)
			removeAll(dirs)
			return err
		}
		if clients == 1 {
			stopAll(running)
			removeAll(dirs)
			for i, r := range res {
				rows = append(rows, []string{names[i], fmt.Sprintf("%.0f", us(r.cpuPerCall)), fmt.Sprintf("%.0f", r.rate)})
			}
			continue
		}
		quietFrom := time.Now()
		time.Sleep(g.quiet)
		for i, r := range res {
			anon, err := proc.PssAnon(running[i].cmd.Process.Pid)
			if err != nil {
				stopAll(running)
				removeAll(dirs)
				return fmt.Errorf("%s after quiet: %w", names[i], err)
			}
			rows[i] = append(rows[i], fmt.Sprintf("%.0f", us(r.cpuPerCall)), fmt.Sprintf("%.0f", r.rate), fmt.Sprintf("%.1f", mib(r.anon)), fmt.Sprintf("%.1f", mib(anon)))
		}
		stopAll(running)
		removeAll(dirs)
		fmt.Printf("bench: quiet reading %s after the load; load average %s\n", time.Since(quietFrom).Round(time.Second), loadAverage())
	}
	fmt.Printf("\n| target | CPU µs/call, 1 client | calls/s, 1 client | CPU µs/call, 16 clients | calls/s, 16 clients | anon MiB after the load | anon MiB after %s quiet |\n|---|---:|---:|---:|---:|---:|---:|\n", g.quiet)
	for _, r := range rows {
		fmt.Printf("| %s |\n", strings.Join(r, " | "))
	}
	return nil
}

// callBody is a tools/call request for tool with args (JSON).
func callBody(tool, args string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
}

// stateDirs gives each server in argvs (the ones with an empty --state-dir) a new state folder.
func stateDirs(argvs [][]string) ([]string, error) {
	var dirs []string
	for _, argv := range argvs {
		for i := range argv {
			if argv[i] == "--state-dir" && i+1 < len(argv) {
				d, err := os.MkdirTemp("", "bench-gc-")
				if err != nil {
					removeAll(dirs)
					return nil, err
				}
				argv[i+1] = d
				dirs = append(dirs, d)
			}
		}
	}
	return dirs, nil
}

func removeAll(dirs []string) {
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
}

// cloneArgv copies argvs, which startTarget rewrites (PORT, ADDR).
func cloneArgv(argvs [][]string) [][]string {
	out := make([][]string, len(argvs))
	for i, a := range argvs {
		out[i] = append([]string(nil), a...)
	}
	return out
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// loadAverage is the machine's 1-, 5- and 15-minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
