package index

import (
	"context"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// Named lists, up to limit, the notes a bare name may mean, as a wikilink's target is
// matched (Resolve): those whose path without .md is the name, else whose file name is, else
// whose title is, ignoring case; shortest paths first.
func (ix *Index) Named(ctx context.Context, name string, limit int) ([]string, error) {
	key := vault.LinkKey(name)
	for _, col := range []string{"pkey", "stem", "tkey"} {
		rows, err := ix.read.QueryContext(ctx, `SELECT path FROM notes WHERE `+col+` = ? ORDER BY length(path), path LIMIT ?`, key, limit)
		if err != nil {
			return nil, err
		}
		var paths []string
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return nil, err
			}
			paths = append(paths, p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil || len(paths) > 0 {
			return paths, err
		}
	}
	return nil, nil
}

// PathsFrom lists, up to limit and in order, the paths of the notes that start with prefix.
func (ix *Index) PathsFrom(ctx context.Context, prefix string, limit int) ([]string, error) {
	// Paths compare as bytes: every path starting with prefix sorts below prefix+"\xff", a
	// byte that valid UTF-8 never holds. The path's unique index answers it.
	rows, err := ix.read.QueryContext(ctx, `SELECT path FROM notes WHERE path >= ? AND path < ? ORDER BY path LIMIT ?`, prefix, prefix+"\xff", limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, rows.Err()
}
