package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/scripts/internal/proc"
	"github.com/jck411/mcp-servers/servers/notes/vaultgen"
)

// bench is one run: what it measures and the rows of its table.
type bench struct {
	bin, cpus  string
	opt        vaultgen.Options
	buildLimit time.Duration
	rows       []row
}

// row is one line of the table.
type row struct {
	what, result, goal string
}

func (b *bench) add(what, result, goal string) {
	b.rows = append(b.rows, row{what, result, goal})
	fmt.Fprintf(os.Stderr, "notesbench: %s: %s\n", what, result)
}

func (b *bench) print() {
	fmt.Printf("\n%d notes (seed %d), server %s", b.opt.Notes, b.opt.Seed, b.bin)
	if b.cpus != "" {
		fmt.Printf(" on CPUs %s", b.cpus)
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf(", load average %s", strings.Join(strings.Fields(string(load))[:3], " "))
	}
	fmt.Printf("\n\n| measure | result | goal at 100,000 notes |\n|---|---|---|\n")
	for _, r := range b.rows {
		fmt.Printf("| %s | %s | %s |\n", r.what, r.result, r.goal)
	}
}

// timings are durations with their percentiles.
type timings []time.Duration

func (t timings) pct(p float64) time.Duration {
	if len(t) == 0 {
		return 0
	}
	s := slices.Clone(t)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func (t timings) String() string {
	return fmt.Sprintf("p50 %s, p95 %s, p99 %s (%d)", ms(t.pct(0.5)), ms(t.pct(0.95)), ms(t.pct(0.99)), len(t))
}

func (b *bench) run(ctx context.Context, vaultDir string, nQueries, nRG, nEdits int) error {
	vault, err := prepareVault(vaultDir, b.opt)
	if err != nil {
		return err
	}
	stateParent, err := os.MkdirTemp("", "notesbench-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stateParent)
	state := filepath.Join(stateParent, "state")
	paths := vaultgen.Paths(b.opt)

	// The cold build.
	s, err := startServer(b.bin, b.cpus, vault, state)
	if err != nil {
		return err
	}
	listen, _, err := s.waitFor(ctx, b.buildLimit, func(h health) bool { return h.code != 0 })
	if err != nil {
		s.stop()
		return fmt.Errorf("cold start: %w", err)
	}
	b.add("cold start: /healthz answers", secs(listen), "≤ 1 s")
	if err := s.connect(ctx); err != nil {
		s.stop()
		return err
	}
	first, status, err := s.firstAnswer(ctx, vaultgen.Queries(b.opt, 1)[0].Text, b.buildLimit)
	if err != nil {
		s.stop()
		return fmt.Errorf("cold start: %w", err)
	}
	b.add("cold start: the first search answers, while the index builds", fmt.Sprintf("%s (%s)", secs(first), status), "")
	built, h, err := s.waitFor(ctx, b.buildLimit, health.ready)
	peak := s.peak()
	if err != nil {
		b.add("cold index build", fmt.Sprintf("not done after %s (%s), anon peak %s", b.buildLimit, h.detail, mib(peak)), "≤ 2 min")
		s.stop()
		return err
	}
	cpu, _ := proc.RunTime(s.cmd.Process.Pid)
	b.add("cold index build, until /healthz says it is whole", fmt.Sprintf("%s (%s; %s of CPU), anon peak %s", secs(built), h.detail, secs(cpu), mib(peak)), "≤ 2 min, ≤ 96 MiB")
	s.stop()

	// A start with the index there.
	if s, err = startServer(b.bin, b.cpus, vault, state); err != nil {
		return err
	}
	defer s.stop()
	listen, _, err = s.waitFor(ctx, time.Minute, func(h health) bool { return h.code != 0 })
	if err != nil {
		return fmt.Errorf("warm start: %w", err)
	}
	if err := s.connect(ctx); err != nil {
		return err
	}
	probe := vaultgen.Queries(b.opt, 1)[0].Text
	var found time.Duration
	for found == 0 && time.Since(s.started) < time.Minute {
		out, _, err := s.call(ctx, "list_notes", map[string]any{"query": probe})
		if h, _ := s.health(ctx); err == nil && len(notes(out)) > 0 && h.ready() {
			found = time.Since(s.started)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.add("start with the index built: /healthz answers / a search answers from the whole index", secs(listen)+" / "+secs(found), "≤ 2 s")

	// Searches.
	qs := vaultgen.Queries(b.opt, nQueries)
	all, allCPU := timings{}, timings{}
	byKind := map[string]timings{}
	hits := 0
	s.peak()
	for _, q := range qs {
		out, d, cpu, err := s.callCPU(ctx, "list_notes", map[string]any{"query": q.Text, "limit": 10})
		if err != nil {
			return fmt.Errorf("search %q: %w", q.Text, err)
		}
		hits += len(notes(out))
		all, allCPU = append(all, d), append(allCPU, cpu)
		byKind[q.Kind] = append(byKind[q.Kind], d)
	}
	b.add("list_notes with a query, all searches", fmt.Sprintf("%s, %.1f hits each", all, float64(hits)/float64(len(qs))), "p99 ≤ 50 ms")
	b.add("… the server's CPU time per search", allCPU.String(), "")
	for _, k := range []string{"word", "common", "two-words", "name", "phrase", "prefix", "typo"} {
		b.add("… "+k, byKind[k].String(), "")
	}

	// Listings with filters, and links.
	r := rand.New(rand.NewPCG(b.opt.Seed, 9))
	folders := []string{"projects", "resources", "daily", "meetings", "people", "inbox", "archive"}
	tags := []string{"work", "home", "idea", "project", "meeting", "reading", "status/active"}
	list := timings{}
	for i := range 100 {
		args := map[string]any{"limit": 50}
		if i%2 == 0 {
			args["folder"] = folders[r.IntN(len(folders))]
		}
		if i%3 != 2 {
			args["tag"] = tags[r.IntN(len(tags))]
		}
		if i%4 == 0 {
			args["updated_after"] = fmt.Sprintf("%d-%02d-01", 2017+r.IntN(8), 1+r.IntN(12))
		}
		if i%5 == 0 {
			args["sort"] = "created"
		}
		_, d, err := s.call(ctx, "list_notes", args)
		if err != nil {
			return fmt.Errorf("list %v: %w", args, err)
		}
		list = append(list, d)
	}
	b.add("list_notes with filters (folder, tag, dates, sort)", list.String(), "")
	links := timings{}
	for range 100 {
		_, d, err := s.call(ctx, "get_note_links", map[string]any{"path": paths[r.IntN(len(paths))], "hops": 2})
		if err != nil {
			return fmt.Errorf("links: %w", err)
		}
		links = append(links, d)
	}
	b.add("get_note_links with two hops", links.String(), "")
	b.add("anonymous memory: peak during the calls / 2 s after", mib(s.peak())+" / "+mibAfter(s, 2*time.Second), "≤ 96 MiB")

	// Outside edits.
	edit := timings{}
	for i := range nEdits {
		word := fmt.Sprintf("zqxmarker%dn%d", i, time.Now().UnixNano()%1e6)
		p := filepath.Join(vault, filepath.FromSlash(paths[r.IntN(len(paths))]))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		t0 := time.Now()
		_, err = f.WriteString("\n\nAdded outside: " + word + "\n")
		if err = errors.Join(err, f.Close()); err != nil {
			return err
		}
		for {
			out, _, err := s.call(ctx, "list_notes", map[string]any{"query": word})
			if err == nil && len(notes(out)) > 0 {
				break
			}
			if time.Since(t0) > time.Minute {
				return fmt.Errorf("an outside edit was not found by search within a minute")
			}
			time.Sleep(10 * time.Millisecond)
		}
		edit = append(edit, time.Since(t0))
		time.Sleep(300 * time.Millisecond)
	}
	b.add("outside edit until search finds it", fmt.Sprintf("median %s, most %s (%d edits)", secs(edit.pct(0.5)), secs(edit.pct(1)), len(edit)), "≤ 1 s")
	s.stop()

	// The floors.
	fts, err := ftsFloor(ctx, filepath.Join(state, "notes-index.sqlite"), qs)
	if err != nil {
		b.add("floor: bare SQLite FTS5 query on the index", "failed: "+err.Error(), "")
	} else {
		b.add("floor: the searches as one bare SQLite FTS5 query on the index", fts.String(), "")
	}
	if nRG > 0 {
		rg, err := rgFloor(ctx, b.cpus, vault, qs, nRG)
		if err != nil {
			b.add("floor: ripgrep", "failed: "+err.Error(), "")
		} else {
			b.add("floor: ripgrep -l -i -w over the files, single words", rg.String(), "")
		}
	}
	return nil
}

// mibAfter waits d and returns the server's anonymous memory then.
func mibAfter(s *server, d time.Duration) string {
	time.Sleep(d)
	return mib(s.anon())
}
