// Command toolsdoc writes docs/tools.md from the tool snapshots every server keeps in
// testdata/toolsnaps (written by make toolsnaps, checked by each server's TestToolSnaps), and
// fails when two servers offer a tool of the same name (the chat backend routes calls by tool
// name alone). With -check it fails instead of writing when the file is stale, the fleet's
// tools/list is past its budget (ModelBudget, WholeBudget), or a document in -docs names a
// tool no server has (CheckDocNames).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	servers := flag.String("servers", "servers", "folder of the server modules, each with its tool snapshots in "+snapDir)
	out := flag.String("out", "docs/tools.md", "markdown file to write")
	check := flag.Bool("check", false, "fail if the file is stale instead of writing it")
	docs := flag.String("docs", "README.md,docs/*.md", "comma list of globs of the documents -check reads for tool names")
	flag.Parse()
	if err := run(*servers, *out, *docs, *check); err != nil {
		fmt.Fprintln(os.Stderr, "toolsdoc:", err)
		os.Exit(1)
	}
}

func run(root, out, docs string, check bool) error {
	servers, err := Load(root)
	if err != nil {
		return err
	}
	if err := CheckUnique(servers); err != nil {
		return err
	}
	doc := Render(servers)
	if !check {
		return os.WriteFile(out, doc, 0o644)
	}
	old, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(old, doc) {
		return fmt.Errorf("%s is stale: run make docs and commit it", out)
	}
	if err := CheckBudget(servers); err != nil {
		return err
	}
	var files []string
	for _, g := range strings.Split(docs, ",") {
		m, err := filepath.Glob(g)
		if err != nil {
			return fmt.Errorf("-docs %q: %w", g, err)
		}
		files = append(files, slices.DeleteFunc(m, func(f string) bool { return f == out })...)
	}
	if err := CheckDocNames(servers, files); err != nil {
		return err
	}
	n, opt := 0, 0
	for _, s := range servers {
		n += len(s.Tools)
		for _, t := range s.Tools {
			if t.OnlyWith != "" {
				opt++
			}
		}
	}
	fmt.Printf("toolsdoc: %d tools across %d servers (%d with default flags), names unique, within the tools/list budget, %s current, no stale tool names in %d documents\n", n, len(servers), n-opt, out, len(files))
	return nil
}
