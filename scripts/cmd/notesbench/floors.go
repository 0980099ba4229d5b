package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vaultgen"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ftsFloor times each search as one bare FTS5 query on the server's index, ranked by BM25 with
// the server's weights, the page's paths read: what SQLite alone costs, without word forms,
// typos, snippets, MCP or HTTP.
func ftsFloor(ctx context.Context, file string, qs []vaultgen.Query) (timings, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	st, err := db.PrepareContext(ctx, `SELECT n.path FROM (SELECT rowid AS id, bm25(fts, 10.0, 1.0, 5.0) AS s FROM fts
		WHERE fts MATCH ? ORDER BY s LIMIT 10) top JOIN notes n ON n.id = top.id ORDER BY top.s`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var out timings
	for _, q := range qs {
		t0 := time.Now()
		rows, err := st.QueryContext(ctx, ftsQuery(q.Text))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q.Text, err)
		}
		for rows.Next() {
		}
		err = rows.Close()
		out = append(out, time.Since(t0))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ftsQuery quotes each word (and phrase) of a search for FTS5, keeping a trailing *.
func ftsQuery(q string) string {
	if strings.HasPrefix(q, `"`) {
		return q
	}
	var parts []string
	for _, w := range strings.Fields(q) {
		star := ""
		if strings.HasSuffix(w, "*") {
			w, star = strings.TrimSuffix(w, "*"), "*"
		}
		parts = append(parts, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`+star)
	}
	return strings.Join(parts, " ")
}

// rgFloor times ripgrep listing the files holding each of the first n single-word searches
// (whole word, any case), on cpus when given: a search with no index at all.
func rgFloor(ctx context.Context, cpus, vault string, qs []vaultgen.Query, n int) (timings, error) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		return nil, fmt.Errorf("ripgrep is not installed (apt-get install -y ripgrep)")
	}
	var out timings
	for _, q := range qs {
		if len(out) == n {
			break
		}
		if strings.ContainsAny(q.Text, ` "*`) || q.Kind == "typo" {
			continue
		}
		args := []string{"-l", "-i", "-w", "-F", "--", q.Text, vault}
		name := rg
		if cpus != "" {
			args, name = append([]string{"-c", cpus, rg}, args...), "taskset"
		}
		t0 := time.Now()
		err := exec.CommandContext(ctx, name, args...).Run()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
			err = nil // no match
		}
		if err != nil {
			return nil, fmt.Errorf("rg %s: %w", q.Text, err)
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}
