package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const maxContent = 100_000 // bytes of a note get_note returns at once

func addReadTools(s *kit.Server, n *store) {
	kit.AddTool(s, kit.Tool{Name: "get_note", Toolset: toolsetRead, Title: "Get note", ReadOnly: true, Idempotent: true,
		Description: "Read a note: all of it, the section under one heading, or its outline."}, n.getNote)
	kit.AddTool(s, kit.Tool{Name: "list_notes", Toolset: toolsetRead, Title: "Find notes", ReadOnly: true, Idempotent: true,
		Description: "Find notes: with query a ranked full-text search, else newest first; filter by folder, tag, dates, changed_since, trashed."}, n.findNotes)
	kit.AddTool(s, kit.Tool{Name: "list_note_tags", Toolset: toolsetRead, Title: "List note tags", ReadOnly: true, Idempotent: true,
		Description: "List the tags used in the notes with how many notes carry each."}, n.listTags)
	kit.AddTool(s, kit.Tool{Name: "get_note_links", Toolset: toolsetRead, Title: "Get note links", ReadOnly: true, Idempotent: true,
		Description: "A note's [[wikilinks]] and backlinks with relation types; hops reaches further."}, n.getLinks)
}

type getNoteInput struct {
	Path    string `json:"path" jsonschema:"note path in the notes folder, e.g. 'projects/garden'"`
	Heading string `json:"heading,omitempty" jsonschema:"return only the section under this heading"`
	Outline bool   `json:"outline,omitempty" jsonschema:"return only the list of headings"`
	Offset  int    `json:"offset,omitempty" jsonschema:"byte offset to continue from" schema:"minimum=0"`
}

type noteOutput struct {
	Path       string          `json:"path"`
	Title      string          `json:"title"`
	Tags       []string        `json:"tags"`
	Created    string          `json:"created,omitempty"`
	Updated    string          `json:"updated,omitempty"`
	Hash       string          `json:"hash" jsonschema:"content hash; pass it as expected_hash to update_note"`
	Fields     map[string]any  `json:"fields,omitempty" jsonschema:"front matter fields other than title, tags, created and updated"`
	Content    string          `json:"content,omitempty"`
	Outline    []vault.Heading `json:"outline,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
	NextOffset int             `json:"next_offset,omitempty"`
	New        bool            `json:"new,omitempty" jsonschema:"the note was just created"`
}

func (o noteOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s", o.Path, o.Title)
	if len(o.Tags) > 0 {
		fmt.Fprintf(&b, " [#%s]", strings.Join(o.Tags, " #"))
	}
	if o.Updated != "" { // a note without an updated field and without a write yet has none
		fmt.Fprintf(&b, " (updated %s, hash %s)\n", o.Updated, o.Hash)
	} else {
		fmt.Fprintf(&b, " (hash %s)\n", o.Hash)
	}
	if len(o.Fields) > 0 {
		keys := slices.Sorted(maps.Keys(o.Fields))
		for _, k := range keys {
			v, _ := json.Marshal(o.Fields[k])
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	for _, h := range o.Outline {
		fmt.Fprintf(&b, "%s %s (line %d)\n", strings.Repeat("#", h.Level), h.Text, h.Line)
	}
	b.WriteString(o.Content)
	if o.Truncated {
		fmt.Fprintf(&b, "\n[truncated: call get_note again with offset %d for more]", o.NextOffset)
	}
	return b.String()
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

func (n *store) getNote(ctx context.Context, _ *mcp.CallToolRequest, in getNoteInput) (*mcp.CallToolResult, noteOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, noteOutput{}, err
	}
	note, data, err := n.read(rel)
	if err != nil {
		return nil, noteOutput{}, err
	}
	out := describe(rel, note, data)
	switch {
	case in.Outline:
		out.Outline = vault.Outline(note.Body)
		if out.Outline == nil {
			out.Outline = []vault.Heading{}
		}
		return nil, out, nil
	case in.Heading != "":
		sec, ok := vault.Section(note.Body, in.Heading)
		if !ok {
			return nil, noteOutput{}, kit.Errorf(kit.CodeNotFound, "%s has no heading %q; its headings: %s", rel, in.Heading, headingList(note.Body))
		}
		out.Content = sec
	default:
		out.Content = note.Body
	}
	if in.Offset > len(out.Content) {
		return nil, noteOutput{}, kit.Errorf(kit.CodeInvalidInput, "offset %d is outside the content (%d bytes)", in.Offset, len(out.Content))
	}
	out.Content, out.Truncated, out.NextOffset = truncate(out.Content, in.Offset)
	return nil, out, nil
}

// truncate returns content from offset, cut at maxContent bytes on a character boundary.
func truncate(content string, offset int) (string, bool, int) {
	content = content[offset:]
	if len(content) <= maxContent {
		return content, false, 0
	}
	cut := maxContent
	for cut > 0 && !utf8.RuneStart(content[cut]) {
		cut--
	}
	return content[:cut], true, offset + cut
}

func describe(rel string, note vault.Note, data []byte) noteOutput {
	out := noteOutput{
		Path: rel, Title: noteTitle(rel, note), Tags: allTags(note),
		Created: fmtTime(note.Created), Updated: fmtTime(note.Updated), Hash: vault.Hash(data),
		Fields: note.Fields(),
	}
	for _, k := range []string{"title", "tags", "created", "updated"} {
		delete(out.Fields, k) // shown on their own
	}
	if len(out.Fields) == 0 {
		out.Fields = nil
	}
	return out
}

func headingList(body string) string {
	hs := vault.Outline(body)
	if len(hs) == 0 {
		return "(none)"
	}
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = fmt.Sprintf("%q", h.Text)
	}
	return strings.Join(names, ", ")
}

// dateFilters narrow searches and listings by date: YYYY-MM-DD (the day's start in the server's
// time zone) or an RFC 3339 time; and by front matter fields (fieldquery.go).
type dateFilters struct {
	CreatedAfter  string        `json:"created_after,omitempty" jsonschema:"created at or after (YYYY-MM-DD or RFC 3339)"`
	CreatedBefore string        `json:"created_before,omitempty" jsonschema:"only notes created before"`
	UpdatedAfter  string        `json:"updated_after,omitempty" jsonschema:"only notes updated at or after"`
	UpdatedBefore string        `json:"updated_before,omitempty" jsonschema:"only notes updated before"`
	Fields        []fieldFilter `json:"fields,omitempty" jsonschema:"front matter conditions, all must hold"`
}

// filter builds the index filter from the arguments.
func (d dateFilters) filter(folder, tag string) (index.Filter, error) {
	f := index.Filter{Folder: folder, Tag: vault.NormalizeTag(tag)}
	for _, c := range []struct {
		name, value string
		to          *time.Time
	}{{"created_after", d.CreatedAfter, &f.CreatedAfter}, {"created_before", d.CreatedBefore, &f.CreatedBefore}, {"updated_after", d.UpdatedAfter, &f.UpdatedAfter}, {"updated_before", d.UpdatedBefore, &f.UpdatedBefore}} {
		if c.value == "" {
			continue
		}
		t, err := parseWhen(c.name, c.value)
		if err != nil {
			return f, err
		}
		*c.to = t
	}
	var err error
	f.Fields, err = fieldConds(d.Fields)
	return f, err
}

// parseWhen reads a date (YYYY-MM-DD, the start of that day in the server's time zone) or time
// (RFC 3339, or YYYY-MM-DDTHH:MM in the server's time zone).
func parseWhen(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, kit.Errorf(kit.CodeInvalidInput, "%s %q: give YYYY-MM-DD or an RFC 3339 time such as 2026-03-04T09:30:00Z", name, s)
}

type noteEntry struct {
	Path    string   `json:"path"`
	Title   string   `json:"title,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Updated string   `json:"updated,omitempty"`
	Snippet string   `json:"snippet,omitempty"`
	Match   string   `json:"match,omitempty" jsonschema:"stem: matched another form of a word; near: a similar spelling"`
	Change  string   `json:"change,omitempty" jsonschema:"with changed_since: created, updated or deleted (at the time in updated)"`
}

type listOutput struct {
	Notes      []noteEntry `json:"notes"`
	More       bool        `json:"more"`
	NextOffset int         `json:"next_offset,omitempty"`
	AnyWord    string      `json:"any_word,omitempty" jsonschema:"no note had every word of the query; these are the notes with any of them, for this query"`
	Index      string      `json:"index,omitempty" jsonschema:"set when the index is being built or is behind the notes: what that means for these results"`
}

func (o listOutput) Text() string {
	var b strings.Builder
	if o.Index != "" {
		b.WriteString("(" + o.Index + ")\n")
	}
	if o.AnyWord != "" {
		if len(o.Notes) == 0 {
			return b.String() + "No notes: none has every word of the query, nor any of them."
		}
		fmt.Fprintf(&b, "No note has every word of the query; notes with any of them (query %q), best first:\n", o.AnyWord)
	}
	if len(o.Notes) == 0 {
		return b.String() + "No notes."
	}
	for _, e := range o.Notes {
		if e.Change != "" {
			b.WriteString(e.Change + ": ")
		}
		b.WriteString(e.Path)
		if e.Title != "" {
			b.WriteString(" — " + e.Title)
		}
		if e.Match != "" {
			fmt.Fprintf(&b, " (%s match)", e.Match)
		}
		if len(e.Tags) > 0 {
			fmt.Fprintf(&b, " [#%s]", strings.Join(e.Tags, " #"))
		}
		if e.Updated != "" {
			fmt.Fprintf(&b, " (%s)", e.Updated)
		}
		b.WriteString("\n")
		if e.Snippet != "" {
			b.WriteString("  " + strings.ReplaceAll(e.Snippet, "\n", " ") + "\n")
		}
	}
	if o.More {
		if o.AnyWord != "" {
			fmt.Fprintf(&b, "[more: call again with query %q and offset %d]", o.AnyWord, o.NextOffset)
		} else {
			fmt.Fprintf(&b, "[more: call again with offset %d]", o.NextOffset)
		}
	}
	return b.String()
}

func (n *store) listNotes(ctx context.Context, _ *mcp.CallToolRequest, in findInput) (*mcp.CallToolResult, listOutput, error) {
	limit, offset := in.Limit, in.Offset // bounded and defaulted by the schema
	folder, err := folderPath(in.Folder)
	if err != nil {
		return nil, listOutput{}, err
	}
	sort := index.Sort(in.Sort) // the schema admits updated (the default), created and path
	if in.Trashed && len(in.Fields) > 0 {
		return nil, listOutput{}, kit.Errorf(kit.CodeInvalidInput, "fields narrow the notes, not the trash: leave out fields or trashed")
	}
	if in.Trashed {
		return n.listTrash(folder, limit, offset)
	}
	f, err := in.filter(folder, in.Tag)
	if err != nil {
		return nil, listOutput{}, err
	}
	if err := n.fresh(ctx); err != nil {
		return nil, listOutput{}, err
	}
	ix, release, note, err := n.readable(ctx)
	if err != nil {
		return nil, listOutput{}, err
	}
	defer release()
	if in.ChangedSince != "" {
		return n.listChanges(ctx, ix, note, in.ChangedSince, f, limit, offset)
	}
	entries, more, err := ix.List(ctx, f, sort, limit, offset)
	if err != nil {
		return nil, listOutput{}, kit.Errorf(kit.CodeInternal, "list notes: %w", n.readError(err))
	}
	out := listOutput{Notes: make([]noteEntry, 0, len(entries)), More: more, Index: note}
	for _, e := range entries {
		out.Notes = append(out.Notes, noteEntry{Path: e.Path, Title: e.Title, Tags: e.Tags, Updated: fmtTime(e.Updated)})
	}
	if more {
		out.NextOffset = offset + limit
	}
	return nil, out, nil
}

func (n *store) listChanges(ctx context.Context, ix *index.Index, note, sinceArg string, f index.Filter, limit, offset int) (*mcp.CallToolResult, listOutput, error) {
	since, err := parseWhen("changed_since", sinceArg)
	if err != nil {
		return nil, listOutput{}, err
	}
	changes, more, err := ix.Changes(ctx, since, f, limit, offset)
	if err != nil {
		return nil, listOutput{}, kit.Errorf(kit.CodeInternal, "list changes: %w", n.readError(err))
	}
	out := listOutput{Notes: make([]noteEntry, 0, len(changes)), More: more, Index: note}
	for _, c := range changes {
		out.Notes = append(out.Notes, noteEntry{Path: c.Path, Title: c.Title, Updated: fmtTime(c.At), Change: c.Kind})
	}
	if more {
		out.NextOffset = offset + limit
	}
	return nil, out, nil
}

func (n *store) listTrash(folder string, limit, offset int) (*mcp.CallToolResult, listOutput, error) {
	start := vault.TrashDir
	if folder != "" {
		start += "/" + folder
	}
	files, err := n.v.Walk(start)
	if err != nil {
		return nil, listOutput{}, kit.Errorf(kit.CodeInternal, "list the trash: %w", err)
	}
	out := listOutput{Notes: []noteEntry{}}
	for i, f := range files {
		if i < offset {
			continue
		}
		if len(out.Notes) == limit {
			out.More, out.NextOffset = true, offset+limit
			break
		}
		out.Notes = append(out.Notes, noteEntry{Path: f.Path, Updated: fmtTime(time.Unix(0, f.MTime))})
	}
	return nil, out, nil
}

type searchInput struct {
	Query  string `json:"query" jsonschema:"words that must all appear; \"quoted phrase\", prefix*, a OR b, -excluded" schema:"minLength=1"`
	Tag    string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Folder string `json:"folder,omitempty" jsonschema:"only notes in this folder and below"`
	dateFilters
	Limit  int `json:"limit,omitempty" jsonschema:"at most this many hits" schema:"minimum=1,maximum=50,default=10"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many, for the next page" schema:"minimum=0"`
}

func (n *store) searchNotes(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, listOutput, error) {
	limit, offset := in.Limit, in.Offset // bounded and defaulted by the schema
	folder, err := folderPath(in.Folder)
	if err != nil {
		return nil, listOutput{}, err
	}
	f, err := in.filter(folder, in.Tag)
	if err != nil {
		return nil, listOutput{}, err
	}
	if err := n.fresh(ctx); err != nil {
		return nil, listOutput{}, err
	}
	ix, release, note, err := n.readable(ctx)
	if err != nil {
		return nil, listOutput{}, err
	}
	defer release()
	sctx, cancel := context.WithTimeout(ctx, n.searchTimeout())
	defer cancel()
	hits, more, err := ix.Search(sctx, in.Query, f, limit, offset, n.bodyHead)
	switch {
	case errors.Is(err, index.ErrEmptyQuery):
		return nil, listOutput{}, kit.Errorf(kit.CodeInvalidInput, "query %q has no words to search for; to browse, leave out query", in.Query)
	case errors.Is(err, index.ErrBusy):
		return nil, listOutput{}, kit.Errorf(kit.CodeUnavailable, "busy: %w; try again in a moment", err)
	case err != nil && ctx.Err() != nil:
		return nil, listOutput{}, fmt.Errorf("search stopped: %w", ctx.Err())
	case err != nil && sctx.Err() != nil:
		return nil, listOutput{}, kit.Errorf(kit.CodeLimit, "the search took longer than %s and was stopped; use more distinctive words, a phrase, or a tag or folder filter", n.searchTimeout())
	}
	if err != nil {
		return nil, listOutput{}, kit.Errorf(kit.CodeInternal, "search: %w", n.readError(err))
	}
	out := listOutput{Notes: make([]noteEntry, 0, len(hits)), More: more, Index: note}
	for _, h := range hits {
		e := noteEntry{Path: h.Path, Title: h.Title, Tags: h.Tags, Updated: fmtTime(h.Updated), Snippet: h.Snippet}
		if h.Match != index.MatchExact {
			e.Match = string(h.Match)
		}
		out.Notes = append(out.Notes, e)
	}
	if more {
		out.NextOffset = offset + limit
	}
	return nil, out, nil
}

// snippetRead is how much of a note's file a search reads for its snippet: the snippet comes
// from the first passages of the body, so a huge note costs no more than this.
const snippetRead = 256 << 10

// bodyHead is the start of a note's body for its snippet (index.BodyFunc).
func (n *store) bodyHead(rel string) (string, bool) {
	data, more, err := n.v.ReadHead(rel, snippetRead)
	if err != nil {
		return "", false
	}
	if more { // leave out a character cut at the end
		for i := len(data) - 1; i >= max(0, len(data)-utf8.UTFMax); i-- {
			if utf8.RuneStart(data[i]) {
				if !utf8.FullRune(data[i:]) {
					data = data[:i]
				}
				break
			}
		}
	}
	return vault.Parse(string(data)).Body, more
}

type listTagsInput struct {
	Folder string `json:"folder,omitempty" jsonschema:"count only notes in this folder and below"`
}

type tagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

type listTagsOutput struct {
	Tags []tagCount `json:"tags"`
}

func (o listTagsOutput) Text() string {
	if len(o.Tags) == 0 {
		return "No tags."
	}
	parts := make([]string, len(o.Tags))
	for i, t := range o.Tags {
		parts[i] = fmt.Sprintf("#%s (%d)", t.Tag, t.Count)
	}
	return strings.Join(parts, ", ")
}

func (n *store) listTags(ctx context.Context, _ *mcp.CallToolRequest, in listTagsInput) (*mcp.CallToolResult, listTagsOutput, error) {
	folder, err := folderPath(in.Folder)
	if err != nil {
		return nil, listTagsOutput{}, err
	}
	if err := n.fresh(ctx); err != nil {
		return nil, listTagsOutput{}, err
	}
	ix, release, _, err := n.readable(ctx)
	if err != nil {
		return nil, listTagsOutput{}, err
	}
	defer release()
	tags, err := ix.Tags(ctx, folder)
	if err != nil {
		return nil, listTagsOutput{}, kit.Errorf(kit.CodeInternal, "list tags: %w", n.readError(err))
	}
	out := listTagsOutput{Tags: make([]tagCount, 0, len(tags))}
	for _, t := range tags {
		out.Tags = append(out.Tags, tagCount{Tag: t.Tag, Count: t.Count})
	}
	return nil, out, nil
}

type pathInput struct {
	Path string `json:"path" jsonschema:"note path in the notes folder"`
}

type linksInput struct {
	Path  string `json:"path" jsonschema:"note path in the notes folder"`
	Hops  int    `json:"hops,omitempty" jsonschema:"notes up to this many links away" schema:"minimum=1,maximum=3"`
	Limit int    `json:"limit,omitempty" jsonschema:"with hops: at most this many notes" schema:"minimum=1,maximum=100,default=20"`
}

type outLink struct {
	Target string `json:"target"`
	Type   string `json:"type,omitempty" jsonschema:"the relation's type, for a link written '- TYPE [[target]]'"`
	Path   string `json:"path,omitempty" jsonschema:"the note it resolves to; empty when none exists"`
}

type backlink struct {
	Path string `json:"path"`
	Type string `json:"type,omitempty"`
}

type contextNote struct {
	Path     string `json:"path"`
	Title    string `json:"title,omitempty"`
	Updated  string `json:"updated,omitempty"`
	Hops     int    `json:"hops"`
	Via      string `json:"via" jsonschema:"the note it was reached from"`
	Relation string `json:"relation" jsonschema:"the link's type, or 'link' for a plain [[wikilink]]"`
	FromVia  bool   `json:"from_via" jsonschema:"true: via links to this note; false: this note links to via"`
}

type linksOutput struct {
	Path        string        `json:"path"`
	Outgoing    []outLink     `json:"outgoing"`
	Backlinks   []backlink    `json:"backlinks"`
	Context     []contextNote `json:"context,omitempty"`
	MoreContext bool          `json:"more_context,omitempty" jsonschema:"more notes are within hops than limit allowed"`
}

func (o linksOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s links to:", o.Path)
	if len(o.Outgoing) == 0 {
		b.WriteString(" nothing")
	}
	for _, l := range o.Outgoing {
		to := l.Path
		if to == "" {
			to = "(no such note)"
		}
		if l.Type != "" {
			fmt.Fprintf(&b, "\n  %s [[%s]] → %s", l.Type, l.Target, to)
		} else {
			fmt.Fprintf(&b, "\n  [[%s]] → %s", l.Target, to)
		}
	}
	b.WriteString("\nlinked from:")
	if len(o.Backlinks) == 0 {
		b.WriteString(" nothing")
	}
	for _, l := range o.Backlinks {
		b.WriteString("\n  " + l.Path)
		if l.Type != "" {
			b.WriteString(" (" + l.Type + ")")
		}
	}
	if o.Context != nil {
		b.WriteString("\ncontext, newest first:")
		for _, c := range o.Context {
			from, to := c.Path, c.Via
			if c.FromVia {
				from, to = c.Via, c.Path
			}
			fmt.Fprintf(&b, "\n  %s — %s (updated %s; %d hop(s): %s -%s-> %s)", c.Path, c.Title, c.Updated, c.Hops, from, c.Relation, to)
		}
		if o.MoreContext {
			b.WriteString("\n  [more: raise limit]")
		}
	}
	return b.String()
}

func (n *store) getLinks(ctx context.Context, _ *mcp.CallToolRequest, in linksInput) (*mcp.CallToolResult, linksOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, linksOutput{}, err
	}
	if err := n.fresh(ctx); err != nil {
		return nil, linksOutput{}, err
	}
	if !n.v.Exists(rel) {
		_, _, err := n.read(rel)
		return nil, linksOutput{}, err
	}
	ix, release, _, err := n.readable(ctx)
	if err != nil {
		return nil, linksOutput{}, err
	}
	defer release()
	links, err := ix.Outgoing(ctx, rel)
	if err != nil {
		return nil, linksOutput{}, kit.Errorf(kit.CodeInternal, "links: %w", err)
	}
	out := linksOutput{Path: rel, Outgoing: make([]outLink, 0, len(links))}
	for _, l := range links {
		p, err := ix.Resolve(ctx, l.Target)
		if err != nil {
			return nil, linksOutput{}, kit.Errorf(kit.CodeInternal, "links: %w", err)
		}
		out.Outgoing = append(out.Outgoing, outLink{Target: l.Target, Type: l.Type, Path: p})
	}
	back, err := ix.TypedBacklinks(ctx, rel)
	if err != nil {
		return nil, linksOutput{}, kit.Errorf(kit.CodeInternal, "backlinks: %w", err)
	}
	out.Backlinks = make([]backlink, 0, len(back))
	for _, b := range back {
		out.Backlinks = append(out.Backlinks, backlink{Path: b.Path, Type: b.Type})
	}
	if in.Hops > 0 {
		related, more, err := ix.Neighborhood(ctx, rel, in.Hops, in.Limit)
		if err != nil {
			return nil, linksOutput{}, kit.Errorf(kit.CodeInternal, "context: %w", err)
		}
		out.Context, out.MoreContext = make([]contextNote, 0, len(related)), more
		for _, r := range related {
			c := contextNote{Path: r.Path, Title: r.Title, Updated: fmtTime(r.Updated), Hops: r.Hops, Via: r.Via, Relation: r.Type, FromVia: r.Out}
			if c.Relation == "" {
				c.Relation = "link"
			}
			out.Context = append(out.Context, c)
		}
	}
	return nil, out, nil
}
