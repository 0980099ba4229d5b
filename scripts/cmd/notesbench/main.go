// Command notesbench measures the notes server where its users wait, over a generated vault
// (servers/notes/vaultgen) and the built binary run as its own process:
//
//   - the cold index build (until /healthz says the index is whole) and the anonymous memory
//     it peaks at, and how soon the server listens meanwhile;
//   - a start with the index already built: until /healthz answers, and until a search answers
//     from the whole index;
//   - list_notes with a query over a few hundred varied searches (words, pairs, names, phrases,
//     prefixes, typos), p50 and p99, each kind on its own row; listings with filters;
//     get_note_links with two hops;
//   - one note edited outside the server: the time until a search finds the new word;
//   - anonymous memory (Pss_Anon of /proc/PID/smaps_rollup) after the searches;
//   - the floors: the same searches as one bare SQLite FTS5 query on the server's own index,
//     and single words with ripgrep over the files.
//
// It prints a table with the goals of issue 34 beside each number. The server can be pinned to
// some CPUs (-cpus 0,1, through taskset).
//
// Usage:
//
//	notesbench gen -notes 100000 -seed 1 DIR   write a vault
//	notesbench -bin bin/notes -notes 10000 [-vault DIR] [-cpus 0,1]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vaultgen"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "gen" {
		os.Exit(gen(os.Args[2:]))
	}
	bin := flag.String("bin", "bin/notes", "the notes server binary")
	count := flag.Int("notes", 10_000, "notes in the generated vault")
	seed := flag.Uint64("seed", 1, "the vault's seed")
	vault := flag.String("vault", "", "folder of the vault: reused when it holds the vault -notes and -seed make, else generated there (default: a temporary folder)")
	cpus := flag.String("cpus", "", "run the server on these CPUs (taskset -c), e.g. 0,1")
	queries := flag.Int("queries", 300, "searches to time")
	rgQueries := flag.Int("rg", 20, "single-word searches to time with ripgrep (0: none)")
	edits := flag.Int("edits", 5, "outside edits to time")
	buildLimit := flag.Duration("build-limit", 10*time.Minute, "give up on the cold build after this long")
	flag.Parse()

	opt := vaultgen.Options{Notes: *count, Seed: *seed}
	b := &bench{bin: *bin, cpus: *cpus, opt: opt, buildLimit: *buildLimit}
	if err := b.run(context.Background(), *vault, *queries, *rgQueries, *edits); err != nil {
		fmt.Fprintln(os.Stderr, "notesbench:", err)
		b.print()
		os.Exit(1)
	}
	b.print()
}

// gen is the gen subcommand: it writes a vault.
func gen(args []string) int {
	fs := flag.NewFlagSet("notesbench gen", flag.ContinueOnError)
	count := fs.Int("notes", 10_000, "notes to write")
	seed := fs.Uint64("seed", 1, "the vault's seed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: notesbench gen [-notes N] [-seed S] DIR")
		return 2
	}
	t0 := time.Now()
	opt := vaultgen.Options{Notes: *count, Seed: *seed}
	st, err := vaultgen.Generate(fs.Arg(0), opt)
	if err == nil {
		// the marker lets a later run take the folder as this vault (-vault DIR)
		err = os.WriteFile(filepath.Join(fs.Arg(0), ".vaultgen"), []byte(vaultMarker(opt)), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "notesbench gen:", err)
		return 1
	}
	fmt.Printf("%d notes (%d of more than 1,000 words), %d folders, %.1f MB, %d words, in %.1f s\n",
		st.Notes, st.Long, st.Folders, float64(st.Bytes)/1e6, st.Words, time.Since(t0).Seconds())
	return 0
}

// prepareVault returns a folder holding the vault of opt: dir when it already does (its
// .vaultgen marker says so), else generated into dir (which must be empty or absent) or a
// temporary folder.
func prepareVault(dir string, opt vaultgen.Options) (string, error) {
	marker := vaultMarker(opt)
	if dir == "" {
		d, err := os.MkdirTemp("", "notesbench-vault-")
		if err != nil {
			return "", err
		}
		dir = d
	} else if b, err := os.ReadFile(filepath.Join(dir, ".vaultgen")); err == nil {
		if string(b) == marker {
			return dir, nil
		}
		return "", fmt.Errorf("%s holds another vault (%s): give another -vault", dir, strings.TrimSpace(string(b)))
	} else if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		return "", fmt.Errorf("%s is not empty and holds no generated vault: give an empty or new folder", dir)
	}
	fmt.Fprintf(os.Stderr, "notesbench: writing %d notes to %s\n", opt.Notes, dir)
	if _, err := vaultgen.Generate(dir, opt); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, ".vaultgen"), []byte(marker), 0o600)
}

// vaultMarker is what a generated vault's .vaultgen file says.
func vaultMarker(opt vaultgen.Options) string {
	return fmt.Sprintf("notes %d seed %d\n", opt.Notes, opt.Seed)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s" }

func mib(b int64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" }
