// Command toolsdoc writes docs/tools.md from what each built server reports with --list-tools,
// and fails when two servers offer a tool of the same name (the chat backend routes calls by
// tool name alone). With -check it fails instead of writing when the file is stale.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin", "directory of built server binaries")
	out := flag.String("out", "docs/tools.md", "markdown file to write")
	check := flag.Bool("check", false, "fail if the file is stale instead of writing it")
	flag.Parse()
	if err := run(*bin, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "toolsdoc:", err)
		os.Exit(1)
	}
}

func run(binDir, out string, check bool) error {
	entries, err := os.ReadDir(binDir)
	if err != nil {
		return fmt.Errorf("read %s (run make build first): %w", binDir, err)
	}
	var servers []Server
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(binDir, e.Name())
		s, err := listTools(path)
		if err != nil {
			return err
		}
		if flags := optionalTools[e.Name()]; len(flags) > 0 {
			full, err := listTools(path, flags...)
			if err != nil {
				return err
			}
			s = MarkOptional(s, full, strings.Join(flags, " "))
		}
		servers = append(servers, s)
	}
	if len(servers) == 0 {
		return fmt.Errorf("no server binaries in %s", binDir)
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Port < servers[j].Port })
	if err := CheckUnique(servers); err != nil {
		return err
	}
	doc := Render(servers)
	if check {
		old, err := os.ReadFile(out)
		if err != nil || !bytes.Equal(old, doc) {
			return fmt.Errorf("%s is stale: run make docs and commit it", out)
		}
		n := 0
		for _, s := range servers {
			n += len(s.Tools)
		}
		fmt.Printf("toolsdoc: %d tools across %d servers, names unique, %s current\n", n, len(servers), out)
		return nil
	}
	return os.WriteFile(out, doc, 0o644)
}

// optionalTools are the flags that turn on a server's optional tools, so that the reference
// (and the unique-name check) covers them too. A tool listed only with the flags is marked
// "only with FLAGS" in the reference.
var optionalTools = map[string][]string{
	"notes": {"--sync", "drive"}, // sync_notes
}

// listTools runs one server binary with --list-tools and the given flags.
func listTools(path string, flags ...string) (Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"--list-tools"}, flags...)...)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return Server{}, fmt.Errorf("%s --list-tools: %w: %s", path, err, stderr.String())
	}
	var s Server
	if err := json.Unmarshal(b, &s); err != nil {
		return Server{}, fmt.Errorf("%s --list-tools output: %w", path, err)
	}
	return s, nil
}
