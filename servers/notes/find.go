package main

import (
	"context"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// findInput is list_notes' input: a listing by folder, tag and dates, or with query a ranked
// full-text search under the same filters. list_notes and search_notes took the same filters,
// so both fitted "my notes tagged x from last week"; one tool leaves no doubt.
type findInput struct {
	Query   string `json:"query,omitempty" jsonschema:"full-text search: all words must match; \"phrase\", prefix*, a OR b, -excluded" schema:"minLength=1"`
	Folder  string `json:"folder,omitempty" jsonschema:"only notes in this folder and below"`
	Tag     string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Sort    string `json:"sort,omitempty" jsonschema:"without query; newest first" schema:"enum=updated|created|path"`
	Trashed bool   `json:"trashed,omitempty" jsonschema:"list the trash instead"`
	dateFilters
	ChangedSince string `json:"changed_since,omitempty" jsonschema:"changed since this date or time"`
	Limit        int    `json:"limit,omitempty" jsonschema:"default 50, with query 10" schema:"minimum=1,maximum=200"`
	Offset       int    `json:"offset,omitempty" jsonschema:"skip this many, for the next page" schema:"minimum=0"`
}

// maxSearchHits bounds a search's page, as search_notes did.
const maxSearchHits = 50

// findNotes searches (searchNotes) or lists (listNotes) the notes.
func (n *store) findNotes(ctx context.Context, req *mcp.CallToolRequest, in findInput) (*mcp.CallToolResult, listOutput, error) {
	if in.Query == "" {
		if in.Limit == 0 {
			in.Limit = 50
		}
		if in.Sort == "" {
			in.Sort = "updated"
		}
		return n.listNotes(ctx, req, in)
	}
	switch {
	case in.Sort != "" || in.Trashed || in.ChangedSince != "":
		return nil, listOutput{}, kit.Errorf(kit.CodeInvalidInput, "sort, trashed and changed_since list notes: leave them out with query (a search is ranked), or leave out query")
	case in.Limit > maxSearchHits:
		return nil, listOutput{}, kit.Errorf(kit.CodeInvalidInput, "with query, limit must be at most %d, not %d", maxSearchHits, in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 10
	}
	search := searchInput{Query: in.Query, Tag: in.Tag, Folder: in.Folder, dateFilters: in.dateFilters, Limit: limit, Offset: in.Offset}
	res, out, err := n.searchNotes(ctx, req, search)
	anyWord := anyWordQuery(in.Query)
	if err != nil || len(out.Notes) > 0 || in.Offset > 0 || anyWord == "" {
		return res, out, err
	}
	// No note has every word: a question in plain words rarely does. Say so, and show the
	// notes that have some of them, best first.
	search.Query = anyWord
	res, out, err = n.searchNotes(ctx, req, search)
	out.AnyWord = anyWord
	return res, out, err
}

// anyWordQuery is the query that matches a note with any of q's words, when q is plain words
// (two or more, no "phrase", prefix*, OR or -exclusion, which say what the caller meant), else "".
func anyWordQuery(q string) string {
	if strings.ContainsAny(q, `"*`) {
		return ""
	}
	var words []string
	for _, w := range strings.Fields(q) {
		if w == "OR" || strings.HasPrefix(w, "-") {
			return ""
		}
		words = append(words, w)
	}
	if len(words) < 2 {
		return ""
	}
	return strings.Join(words, " OR ")
}
