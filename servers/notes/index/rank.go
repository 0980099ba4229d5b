package index

import (
	"context"
	"database/sql"
	"fmt"
)

// Ranking by BM25 reads every matching note's statistics, so its cost grows with the matches:
// a word in most of 100,000 notes costs about half a second. A search matching more than
// broadCap notes therefore ranks the broadCap most recently changed of them by BM25 and lists
// the older ones after them, newest first. Notes get ids in the order they were indexed (a
// build goes oldest first, and a note indexed again gets the highest id), so "most recently
// changed" is "highest ids", which FTS5 reads straight from its index.
const broadCap = 2000

// pass is one ranked run of a tier's matches: all of them by BM25, or those with ids in
// [from, below) (0: no bound), by BM25 or newest first.
type pass struct {
	match       string
	from, below int64
	newest      bool
}

// passes are how a tier's matches within f are ranked: one pass, or for a broad match two.
// One statement finds both whether the match is broad and where its newest broadCap end: the
// broadCap-th newest match and the one after it, which exists only when there are more.
func (ix *Index) passes(ctx context.Context, match string, f Filter) ([]pass, error) {
	from, where, args := matchFrom(match, f)
	rows, err := ix.read.QueryContext(ctx, `SELECT fts.rowid FROM `+from+` WHERE fts MATCH ?1`+where+` ORDER BY fts.rowid DESC LIMIT 2 OFFSET ?`, append(args, ix.broad-1)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) < 2 {
		return []pass{{match: match}}, nil
	}
	return []pass{{match: match, from: ids[0]}, {match: match, below: ids[0], newest: true}}, nil
}

// matchFrom is the FROM clause, the conditions after the MATCH and their arguments (match
// first, as ?1) for matches of match within f.
func matchFrom(match string, f Filter) (from, where string, args []any) {
	where, args = f.where([]any{match})
	from = `fts`
	if where != "" {
		from = `fts JOIN notes n ON n.id = fts.rowid`
	}
	return from, where, args
}

// bounds adds p's id bounds to where and args.
func (p pass) bounds(where string, args []any) (string, []any) {
	if p.from > 0 {
		where += ` AND fts.rowid >= ?`
		args = append(args, p.from)
	}
	if p.below > 0 {
		where += ` AND fts.rowid < ?`
		args = append(args, p.below)
	}
	return where, args
}

// countMatches counts the notes of pass p within f.
func (ix *Index) countMatches(ctx context.Context, p pass, f Filter) (int, error) {
	from, where, args := matchFrom(p.match, f)
	where, args = p.bounds(where, args)
	var n int
	err := ix.read.QueryRowContext(ctx, `SELECT count(*) FROM `+from+` WHERE fts MATCH ?1`+where, args...).Scan(&n)
	return n, err
}

// rank returns up to n hits of pass p from offset, without snippets. Its one statement does all
// its work in its first step (the sort of every match keeping only the page), which is where
// the driver interrupts SQLite when ctx ends; the rows after it are read from the sorted page.
func (ix *Index) rank(ctx context.Context, p pass, f Filter, n, offset int) (hits []Hit, err error) {
	from, where, args := matchFrom(p.match, f)
	where, args = p.bounds(where, args)
	// SQLite's sort with a LIMIT holds just the page, unlike FTS5's own ORDER BY rank, which
	// sorts every match; the id breaks ties, so pages never overlap.
	score, order, outer := `bm25(fts, 10.0, 1.0, 5.0)`, `score, fts.rowid`, `top.score, top.id`
	if p.newest {
		score, order, outer = `0.0`, `fts.rowid DESC`, `top.id DESC`
	}
	rows, err := ix.read.QueryContext(ctx, fmt.Sprintf(`SELECT n.path, n.title, n.updated, top.score,
		(SELECT group_concat(tag, ' ') FROM tags t WHERE t.note = n.id)
		FROM (SELECT fts.rowid AS id, %s AS score FROM %s WHERE fts MATCH ?1%s
			ORDER BY %s LIMIT ? OFFSET ?) AS top
		JOIN notes n ON n.id = top.id ORDER BY %s`, score, from, where, order, outer), append(args, n, offset)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var updated int64
		var tags sql.NullString
		if err := rows.Scan(&h.Path, &h.Title, &updated, &h.Score, &tags); err != nil {
			return nil, err
		}
		h.Score = -h.Score
		h.Updated = fromUnix(updated)
		h.Tags = splitTags(tags)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}
