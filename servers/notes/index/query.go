package index

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// ErrEmptyQuery is a search with no word to look for.
var ErrEmptyQuery = errors.New("the query has no words to search for")

// MatchQuery turns what a person types into an FTS5 query that cannot be a syntax error: words
// and "quoted phrases" must all appear, a trailing * makes a prefix, OR between two terms
// makes either do, and -word excludes a word. Words match only as typed; Search widens them.
func MatchQuery(q string) (string, error) {
	p := parseQuery(q)
	if len(p.pos) == 0 {
		return "", ErrEmptyQuery
	}
	return p.render(asTyped, asTyped), nil
}

// qterm is one term of a query: a word, a "phrase" or a prefix*.
type qterm struct {
	text   string // as typed, without quotes or *
	prefix bool
	word   string // the folded word when the term is one plain word (it gets other forms), else ""
}

// literal is the term as an FTS5 string (a phrase, or a prefix with its *).
func (t qterm) literal() string {
	s := `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	if t.prefix {
		s += "*"
	}
	return s
}

// query is a parsed search: groups that must all match (each one term, or terms joined by
// OR), and terms that must not.
type query struct {
	pos [][]qterm
	neg []qterm
}

// expand gives the FTS5 strings a term may match as.
type expand func(qterm) []string

func asTyped(t qterm) []string { return []string{t.literal()} }

// render is the FTS5 query with every wanted term widened by pos and every excluded one by neg.
func (q query) render(pos, neg expand) string {
	groups := make([]string, len(q.pos))
	for i, g := range q.pos {
		groups[i] = alternatives(g, pos)
	}
	out := strings.Join(groups, " AND ")
	for _, t := range q.neg {
		out = "(" + out + ") NOT " + alternatives([]qterm{t}, neg)
	}
	return out
}

func alternatives(ts []qterm, e expand) string {
	var alts []string
	for _, t := range ts {
		alts = append(alts, e(t)...)
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return "(" + strings.Join(alts, " OR ") + ")"
}

// parseQuery splits q into the terms that must appear (an OR pair as one group) and those that
// must not.
func parseQuery(q string) query {
	var p query
	orNext := false
	for _, tok := range tokens(q) {
		if tok == "OR" {
			orNext = len(p.pos) > 0
			continue
		}
		negate := false
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			negate, tok = true, tok[1:]
		}
		prefix := strings.HasSuffix(tok, "*")
		quoted := strings.HasPrefix(tok, `"`)
		tok = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return -1
			}
			return r
		}, strings.Trim(tok, `"*`))
		if !strings.ContainsFunc(tok, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			continue
		}
		t := qterm{text: tok, prefix: prefix}
		if !prefix && !quoted {
			t.word, _ = oneWord(tok)
		}
		switch {
		case negate:
			p.neg = append(p.neg, t)
		case orNext:
			p.pos[len(p.pos)-1] = append(p.pos[len(p.pos)-1], t)
		default:
			p.pos = append(p.pos, []qterm{t})
		}
		orNext = false
	}
	return p
}

// tokens splits on spaces, keeping "quoted phrases" (and a trailing * after them) whole.
func tokens(q string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case unicode.IsSpace(r) && !inQuote:
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// Hit is one search result.
type Hit struct {
	Path    string
	Title   string
	Tags    []string
	Updated time.Time
	Snippet string
	Score   float64 // higher is better, within its Match kind
	Match   Match
}

// Match says how a hit matched the query's words; exact hits rank before stem hits, and
// those before near ones.
type Match string

// Match kinds.
const (
	MatchExact Match = "exact" // the words as typed
	MatchStem  Match = "stem"  // other forms of the words (wolves for wolf)
	MatchNear  Match = "near"  // a word in no note matched by a spelling one or two edits away
)

// Filter narrows searches and listings. Zero values do not filter.
type Filter struct {
	Folder        string    // clean folder, "" for all
	Tag           string    // normalized tag, "" for any
	CreatedAfter  time.Time // created at or after
	CreatedBefore time.Time // created before
	UpdatedAfter  time.Time // updated at or after
	UpdatedBefore time.Time // updated before
	Fields        []FieldCond
}

func (f Filter) where(args []any) (string, []any) {
	var sb strings.Builder
	if f.Folder != "" {
		sb.WriteString(` AND n.path >= ? AND n.path < ?`)
		args = append(args, f.Folder+"/", f.Folder+"0") // '0' sorts right after '/'
	}
	if f.Tag != "" {
		sb.WriteString(` AND EXISTS (SELECT 1 FROM tags t WHERE t.note = n.id AND t.tag = ?)`)
		args = append(args, f.Tag)
	}
	for _, c := range []struct {
		cond string
		t    time.Time
	}{{"n.created >= ?", f.CreatedAfter}, {"n.created < ?", f.CreatedBefore}, {"n.updated >= ?", f.UpdatedAfter}, {"n.updated < ?", f.UpdatedBefore}} {
		if !c.t.IsZero() {
			sb.WriteString(" AND " + c.cond)
			args = append(args, c.t.UnixNano())
		}
	}
	for _, c := range f.Fields {
		cond, cargs := c.where()
		sb.WriteString(cond)
		args = append(args, cargs...)
	}
	return sb.String(), args
}

// ErrBusy is a search refused because maxSearches others are running.
var ErrBusy = errors.New("too many searches are running")

// Search runs a full-text search ranked by BM25 over whole notes (title matches weigh most,
// then tags), with a snippet from the body (read through body, when given) around the match. Notes matching the words as typed
// come first, then notes matching only other forms of them, then (for a word in no note) notes
// matching a near spelling. more reports that another page exists. At most maxSearches run at
// once: a search that finds no free slot within searchWait fails with ErrBusy. When ctx ends,
// the statement running is interrupted inside SQLite.
func (ix *Index) Search(ctx context.Context, q string, f Filter, limit, offset int, body BodyFunc) (hits []Hit, more bool, err error) {
	p := parseQuery(q)
	if len(p.pos) == 0 {
		return nil, false, ErrEmptyQuery
	}
	release, err := ix.acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	tiers := ix.tiers(p)
	need, skip := limit+1, offset
tiers:
	for i, t := range tiers {
		match := t.match
		if i > 0 { // each tier's matches hold the previous tier's: leave those out
			match = "(" + t.match + ") NOT (" + tiers[i-1].match + ")"
		}
		passes, err := ix.passes(ctx, match, f)
		if err != nil {
			return nil, false, err
		}
		for _, ps := range passes {
			thits, err := ix.rank(ctx, ps, f, need, skip)
			if err != nil {
				return nil, false, err
			}
			switch {
			case len(thits) > 0:
				skip = 0
			case skip > 0: // the page starts past this pass: skip its matches
				n, err := ix.countMatches(ctx, ps, f)
				if err != nil {
					return nil, false, err
				}
				skip -= n
			}
			for j := range thits {
				thits[j].Match = t.kind
				if body != nil {
					text, more := body(thits[j].Path)
					thits[j].Snippet = snippetOf(text, more, t.groups)
				}
			}
			hits, need = append(hits, thits...), need-len(thits)
			if need == 0 {
				break tiers
			}
		}
	}
	if len(hits) > limit {
		return hits[:limit], true, nil
	}
	return hits, false, nil
}

// tier is one pass of a search: what its notes must match (an FTS5 query), and the terms its
// snippets look for and highlight (every group wanted, each in one of its ways).
type tier struct {
	kind   Match
	match  string
	groups [][]alt
}

// tiers are the passes of a search, exact first; a pass that would match no more than the
// one before is left out.
func (ix *Index) tiers(p query) []tier {
	stemWords := remember(func(t qterm) []string { return ix.vocab.forms(t.word) })
	nearWords := remember(func(t qterm) []string {
		forms := stemWords(t)
		if len(forms) == 1 && !ix.vocab.has(t.word) { // in no note: perhaps a typo
			forms = append(slices.Clip(forms), ix.vocab.near(t.word)...)
		}
		return forms
	})
	quoted := func(words func(qterm) []string) expand {
		return func(t qterm) []string {
			if t.word == "" {
				return asTyped(t)
			}
			return quoteAll(words(t))
		}
	}
	stems := quoted(stemWords)
	out := []tier{{MatchExact, p.render(asTyped, stems), p.groups(nil)}}
	for _, t := range []struct {
		kind  Match
		words func(qterm) []string
	}{{MatchStem, stemWords}, {MatchNear, nearWords}} {
		m := p.render(quoted(t.words), stems)
		if m != out[len(out)-1].match {
			out = append(out, tier{t.kind, m, p.groups(t.words)})
		}
	}
	return out
}

// remember returns words, which looks a plain word's forms up in the vocabulary, with each
// word's answer kept: a search renders and highlights every tier from the same forms, and the
// near spellings of a typo cost a pass over the words sharing its first letters.
func remember(words func(qterm) []string) func(qterm) []string {
	seen := map[string][]string{}
	return func(t qterm) []string {
		if out, ok := seen[t.word]; ok {
			return out
		}
		out := words(t)
		seen[t.word] = out
		return out
	}
}

// groups are the wanted terms as snippets look for them, each plain word widened by words
// (nil: as typed).
func (q query) groups(words func(qterm) []string) [][]alt {
	out := make([][]alt, 0, len(q.pos))
	for _, g := range q.pos {
		var as []alt
		for _, t := range g {
			as = append(as, alts(t, words)...)
		}
		if len(as) > 0 {
			out = append(out, as)
		}
	}
	return out
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return out
}

func (ix *Index) acquire(ctx context.Context) (release func(), err error) {
	t := time.NewTimer(searchWait)
	defer t.Stop()
	select {
	case ix.searches <- struct{}{}:
		return func() { <-ix.searches }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, ErrBusy
	}
}

func splitTags(s sql.NullString) []string {
	if !s.Valid || s.String == "" {
		return []string{}
	}
	return vault.NormalizeTags(strings.Fields(s.String))
}

// Entry is one note in a listing.
type Entry struct {
	Path    string
	Title   string
	Tags    []string
	Created time.Time
	Updated time.Time
	Size    int64
}

// Sort orders listings.
type Sort string

// Listing orders.
const (
	ByUpdated Sort = "updated" // most recently updated first
	ByCreated Sort = "created" // most recently created first
	ByPath    Sort = "path"    // alphabetical
)

// List lists notes in order; more reports that another page exists.
func (ix *Index) List(ctx context.Context, f Filter, sort Sort, limit, offset int) (entries []Entry, more bool, err error) {
	where, args := f.where(nil)
	order := "n.updated DESC, n.path"
	switch sort {
	case ByCreated:
		order = "n.created DESC, n.path"
	case ByPath:
		order = "n.path"
	}
	rows, err := ix.read.QueryContext(ctx, `SELECT n.path, n.title, n.created, n.updated, n.size,
		(SELECT group_concat(tag, ' ') FROM tags t WHERE t.note = n.id)
		FROM notes n WHERE 1=1`+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, limit+1, offset)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var e Entry
		var created, updated int64
		var tags sql.NullString
		if err := rows.Scan(&e.Path, &e.Title, &created, &updated, &e.Size, &tags); err != nil {
			return nil, false, err
		}
		e.Created, e.Updated, e.Tags = fromUnix(created), fromUnix(updated), splitTags(tags)
		entries = append(entries, e)
	}
	if len(entries) > limit {
		return entries[:limit], true, rows.Err()
	}
	return entries, false, rows.Err()
}

// TagCount is a tag and how many notes carry it.
type TagCount struct {
	Tag   string
	Count int
}

// Tags counts the notes under each tag, most used first, in folder when one is given.
func (ix *Index) Tags(ctx context.Context, folder string) ([]TagCount, error) {
	where, args := Filter{Folder: folder}.where(nil)
	rows, err := ix.read.QueryContext(ctx, `SELECT t.tag, count(*) AS c FROM tags t JOIN notes n ON n.id = t.note WHERE 1=1`+where+` GROUP BY t.tag ORDER BY c DESC, t.tag`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TagCount
	for rows.Next() {
		var tc TagCount
		if err := rows.Scan(&tc.Tag, &tc.Count); err != nil {
			return nil, err
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}

// Resolve finds the note a wikilink target names: its path without ".md" first, then its file
// name, then its title (all case-insensitive). It returns "" when no note matches.
func (ix *Index) Resolve(ctx context.Context, target string) (string, error) {
	key := vault.LinkKey(target)
	for _, col := range []string{"pkey", "stem", "tkey"} {
		var p string
		err := ix.read.QueryRowContext(ctx, `SELECT path FROM notes WHERE `+col+` = ? ORDER BY length(path), path LIMIT 1`, key).Scan(&p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
	}
	return "", nil
}

// Link is a wikilink of a note: its target as written, and its type when it is a typed
// relation ("- works_at [[Acme]]").
type Link struct {
	Target string
	Type   string
}

// Outgoing lists a note's wikilinks; a target written as a typed relation is listed with its
// type (once per type) instead of as a plain link.
func (ix *Index) Outgoing(ctx context.Context, path string) ([]Link, error) {
	rows, err := ix.read.QueryContext(ctx, `SELECT l.target, l.rel FROM links l JOIN notes n ON n.id = l.src WHERE n.path = ? ORDER BY l.target, l.rel`, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		if err := rows.Scan(&l.Target, &l.Type); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Backlink is a note linking to another, with the relation's type when the link is typed.
type Backlink struct {
	Path string
	Type string
}

// TypedBacklinks lists the notes with a wikilink resolving to path (as Backlinks does), once
// per relation type.
func (ix *Index) TypedBacklinks(ctx context.Context, path string) ([]Backlink, error) {
	rows, err := ix.read.QueryContext(ctx, `SELECT DISTINCT s.path, l.rel FROM notes d
		JOIN links l ON l.key IN (d.pkey, d.stem, d.tkey)
		JOIN notes s ON s.id = l.src
		WHERE d.path = ? AND s.id != d.id ORDER BY s.path, l.rel`, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Backlink
	for rows.Next() {
		var b Backlink
		if err := rows.Scan(&b.Path, &b.Type); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Related is a note reached from another through links, in either direction.
type Related struct {
	Path    string
	Title   string
	Updated time.Time
	Hops    int    // links between it and the note asked about
	Via     string // the note it was reached from
	Type    string // the relation's type, when the link is typed
	Out     bool   // Via links to it (else it links to Via)
}

// maxExplore caps how many notes Neighborhood visits.
const maxExplore = 1000

// Neighborhood lists the notes within hops links of path (following links both ways), most
// recently updated first, at most limit; more reports that there were others. It visits at
// most maxExplore notes, nearest first.
func (ix *Index) Neighborhood(ctx context.Context, path string, hops, limit int) (out []Related, more bool, err error) {
	var start int64
	err = ix.read.QueryRowContext(ctx, `SELECT id FROM notes WHERE path = ?`, path).Scan(&start)
	if errors.Is(err, sql.ErrNoRows) {
		return []Related{}, false, nil // not indexed yet: nothing known around it
	}
	if err != nil {
		return nil, false, err
	}
	type visit struct {
		hops int
		via  int64
		typ  string
		out  bool
	}
	seen := map[int64]visit{start: {}}
	frontier := []int64{start}
	for h := 1; h <= hops && len(frontier) > 0 && len(seen) < maxExplore; h++ {
		ids, _ := json.Marshal(frontier)
		rows, err := ix.read.QueryContext(ctx, `
			SELECT l.src, d.id, l.rel, 1 FROM json_each(?1) f JOIN links l ON l.src = f.value JOIN notes d ON d.pkey = l.key
			UNION SELECT l.src, d.id, l.rel, 1 FROM json_each(?1) f JOIN links l ON l.src = f.value JOIN notes d ON d.stem = l.key
			UNION SELECT l.src, d.id, l.rel, 1 FROM json_each(?1) f JOIN links l ON l.src = f.value JOIN notes d ON d.tkey = l.key
			UNION SELECT d.id, s.id, l.rel, 0 FROM json_each(?1) f JOIN notes d ON d.id = f.value
				JOIN links l ON l.key IN (d.pkey, d.stem, d.tkey) JOIN notes s ON s.id = l.src
			ORDER BY 1, 2, 3`, string(ids))
		if err != nil {
			return nil, false, err
		}
		var next []int64
		for rows.Next() {
			var from, to int64
			var typ string
			var isOut bool
			if err := rows.Scan(&from, &to, &typ, &isOut); err != nil {
				rows.Close()
				return nil, false, err
			}
			if _, ok := seen[to]; ok || len(seen) >= maxExplore {
				continue
			}
			seen[to] = visit{hops: h, via: from, typ: typ, out: isOut}
			next = append(next, to)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, false, err
		}
		frontier = next
	}
	all := make([]int64, 0, len(seen))
	for id := range seen {
		all = append(all, id)
	}
	ids, _ := json.Marshal(all)
	rows, err := ix.read.QueryContext(ctx, `SELECT n.id, n.path, n.title, n.updated FROM json_each(?) f JOIN notes n ON n.id = f.value`, string(ids))
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	paths := map[int64]string{}
	var found []Related
	var foundIDs []int64
	for rows.Next() {
		var id, updated int64
		var r Related
		if err := rows.Scan(&id, &r.Path, &r.Title, &updated); err != nil {
			return nil, false, err
		}
		paths[id] = r.Path
		if id == start {
			continue
		}
		r.Updated = fromUnix(updated)
		found, foundIDs = append(found, r), append(foundIDs, id)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	for i, id := range foundIDs {
		v := seen[id]
		found[i].Hops, found[i].Via, found[i].Type, found[i].Out = v.hops, paths[v.via], v.typ, v.out
	}
	slices.SortFunc(found, func(a, b Related) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.Hops, b.Hops), cmp.Compare(a.Path, b.Path))
	})
	if len(found) > limit {
		return found[:limit], true, nil
	}
	return found, false, nil
}

// Backlinks lists the notes with a wikilink that resolves to path (by its path, file name or
// title), other than itself.
func (ix *Index) Backlinks(ctx context.Context, path string) ([]string, error) {
	rows, err := ix.read.QueryContext(ctx, `SELECT DISTINCT s.path FROM notes d
		JOIN links l ON l.key IN (d.pkey, d.stem, d.tkey)
		JOIN notes s ON s.id = l.src
		WHERE d.path = ? AND s.id != d.id ORDER BY s.path`, path)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Change is a note created, updated or deleted since some time.
type Change struct {
	Path  string
	Title string
	Kind  string // created, updated or deleted
	At    time.Time
}

// Changes lists the notes created, updated (by their updated time or their file's modification
// time, whichever is later) or deleted at or after since, newest first; more reports that
// another page exists. Deleted notes are narrowed by f's folder alone, and are known only
// since the index was last built.
func (ix *Index) Changes(ctx context.Context, since time.Time, f Filter, limit, offset int) (changes []Change, more bool, err error) {
	where, args := f.where([]any{since.UnixNano()})
	var delWhere string
	if f.Folder != "" {
		delWhere = ` AND d.path >= ? AND d.path < ?`
		args = append(args, f.Folder+"/", f.Folder+"0")
	}
	rows, err := ix.read.QueryContext(ctx, `SELECT path, title, kind, at FROM (
		SELECT n.path, n.title, CASE WHEN n.created >= ?1 THEN 'created' ELSE 'updated' END AS kind,
			max(n.created, n.updated, n.mtime) AS at
		FROM notes n WHERE max(n.created, n.updated, n.mtime) >= ?1`+where+`
		UNION ALL
		SELECT d.path, '', 'deleted', d.at FROM deletions d WHERE d.at >= ?1`+delWhere+`
	) ORDER BY at DESC, path LIMIT ? OFFSET ?`, append(args, limit+1, offset)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var c Change
		var at int64
		if err := rows.Scan(&c.Path, &c.Title, &c.Kind, &at); err != nil {
			return nil, false, err
		}
		c.At = fromUnix(at)
		changes = append(changes, c)
	}
	if len(changes) > limit {
		return changes[:limit], true, rows.Err()
	}
	return changes, false, rows.Err()
}
