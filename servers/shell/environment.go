package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type getEnvironmentInput struct{}

type toolVersion struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version" jsonschema:"first line of its version output, or 'not found'"`
}

type getEnvironmentOutput struct {
	OS            string        `json:"os"`
	Kernel        string        `json:"kernel"`
	Arch          string        `json:"arch"`
	Hostname      string        `json:"hostname"`
	User          string        `json:"user"`
	UID           int           `json:"uid"`
	Shell         string        `json:"shell"`
	WorkDir       string        `json:"work_dir"`
	AllowedRoots  []string      `json:"allowed_roots"`
	Policy        string        `json:"policy"`
	AllowCommands []string      `json:"allow_commands,omitempty"`
	Path          string        `json:"path" jsonschema:"the PATH commands run with"`
	Containment   string        `json:"containment" jsonschema:"how everything a command starts is killed: cgroup, subreaper or process-group"`
	ContainNote   string        `json:"containment_note,omitempty" jsonschema:"why a stronger containment is not in force"`
	Enforcement   string        `json:"enforcement" jsonschema:"how the kernel confines commands: landlock-confined (allowlist: only listed programs run, only the roots are written), landlock-write-guard (blocklist outside systemd), landlock-cgroup-guard (only the cgroup tree is withheld: the blocklist under systemd, --policy off) or none"`
	EnforceNote   string        `json:"enforcement_note,omitempty" jsonschema:"why the kernel does not confine commands, or confines them only so far"`
	CPUs          int           `json:"cpus"`
	MemTotalMB    int64         `json:"mem_total_mb"`
	MemAvailMB    int64         `json:"mem_available_mb"`
	DiskTotalMB   int64         `json:"disk_total_mb" jsonschema:"of the file system holding the work directory"`
	DiskFreeMB    int64         `json:"disk_free_mb"`
	Tools         []toolVersion `json:"tools"`
}

func addGetEnvironment(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "get_environment",
		Toolset:     toolsetCommands,
		Title:       "Get environment",
		Description: "Describe the host: OS, user, shell, work directory, allowed roots, policy, resources, tool versions.",
		ReadOnly:    true,
		Timeout:     15 * time.Second,
	}, sh.getEnvironment)
}

func (sh *shell) getEnvironment(ctx context.Context, _ *mcp.CallToolRequest, _ getEnvironmentInput) (*mcp.CallToolResult, getEnvironmentOutput, error) {
	out := getEnvironmentOutput{
		OS: osName(), Arch: runtime.GOARCH, User: sh.env.Get("USER"), UID: os.Getuid(), WorkDir: sh.workDir,
		AllowedRoots: sh.roots.Dirs(), Policy: string(sh.policy.Mode()), AllowCommands: sh.policy.Allowed(),
		Path: sh.env.Get("PATH"), CPUs: runtime.NumCPU(), Tools: []toolVersion{},
		Containment: string(sh.runner.Mode()), ContainNote: sh.runner.Note(),
		Enforcement: sh.enforce.mode, EnforceNote: sh.enforce.note,
	}
	out.Hostname, _ = os.Hostname()
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		out.Kernel = utsString(u.Sysname[:]) + " " + utsString(u.Release[:])
	}
	out.MemTotalMB, out.MemAvailMB = memory()
	var fs syscall.Statfs_t
	if syscall.Statfs(sh.workDir, &fs) == nil {
		out.DiskTotalMB = int64(fs.Blocks) * fs.Bsize >> 20
		out.DiskFreeMB = int64(fs.Bavail) * fs.Bsize >> 20
	}
	names := append([]string{"bash"}, sh.toolVersions...)
	versions := make([]toolVersion, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { versions[i] = sh.version(ctx, n) })
	}
	wg.Wait()
	out.Shell = "/bin/bash " + versions[0].Version
	out.Tools = append(out.Tools, versions[1:]...)
	return nil, out, nil
}

// version runs a program's version option and keeps the first line.
func (sh *shell) version(ctx context.Context, name string) toolVersion {
	tv := toolVersion{Name: name, Version: "not found"}
	for _, dir := range filepath.SplitList(sh.env.Get("PATH")) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			tv.Path = p
			break
		}
	}
	if tv.Path == "" {
		return tv
	}
	arg := "--version"
	if name == "go" {
		arg = "version"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tv.Path, arg)
	env, _ := sh.env.With(nil)
	cmd.Env, cmd.Dir = env, sh.workDir
	b, err := cmd.CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	switch {
	case line != "":
		tv.Version = truncate(line, 200)
	case err != nil:
		tv.Version = "unknown: " + err.Error()
	}
	return tv
}

func osName() string {
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

func memory() (total, avail int64) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "MemTotal:":
			total = kb >> 10
		case "MemAvailable:":
			avail = kb >> 10
		}
	}
	return total, avail
}

func utsString(b []int8) string {
	var sb strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
