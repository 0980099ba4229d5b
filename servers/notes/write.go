package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addWriteTools(s *kit.Server, n *store) {
	kit.AddTool(s, kit.Tool{Name: "create_note", Toolset: toolsetWrite, Title: "Create note", Destructive: true,
		Description: "Create a Markdown note; replaces an existing one only with overwrite."}, n.createNote)
	kit.AddTool(s, kit.Tool{Name: "update_note", Toolset: toolsetWrite, Title: "Update note", Destructive: true,
		Description: "Change a note: replace, append, prepend, find_replace or replace_section."}, n.updateNote)
	kit.AddTool(s, kit.Tool{Name: "tag_note", Toolset: toolsetWrite, Title: "Tag note", Idempotent: true,
		Description: "Add or remove tags on a note (front matter and inline #tags kept in agreement)."}, n.tagNote)
	kit.AddTool(s, kit.Tool{Name: "set_note_field", Toolset: toolsetWrite, Title: "Set note field", Idempotent: true, Destructive: true,
		Description: "Set or remove one front matter field, keeping the rest of the note as written."}, n.setNoteField)
	kit.AddTool(s, kit.Tool{Name: "daily_note", Toolset: toolsetWrite, Title: "Daily note", Idempotent: true,
		Description: "Today's (or a date's) daily, weekly or monthly note, created from its template when missing."}, n.dailyNote)
}

type createInput struct {
	Path      string   `json:"path" jsonschema:"path in the notes folder, e.g. 'ideas/garden.md'"`
	Content   string   `json:"content" jsonschema:"Markdown body, without front matter"`
	Title     string   `json:"title,omitempty" jsonschema:"default: the first heading or file name"`
	Tags      []string `json:"tags,omitempty" jsonschema:"tags, without '#'"`
	Overwrite bool     `json:"overwrite,omitempty" jsonschema:"replace an existing note"`
}

type writeOutput struct {
	Path    string   `json:"path"`
	Hash    string   `json:"hash" jsonschema:"the new content hash"`
	Changed bool     `json:"changed"`
	Tags    []string `json:"tags,omitempty"`
	Detail  string   `json:"detail,omitempty"`
}

func (o writeOutput) Text() string {
	s := fmt.Sprintf("%s saved (hash %s)", o.Path, o.Hash)
	if !o.Changed {
		s = fmt.Sprintf("%s unchanged (hash %s)", o.Path, o.Hash)
	}
	if len(o.Tags) > 0 {
		s += " tags: #" + strings.Join(o.Tags, " #")
	}
	if o.Detail != "" {
		s += "; " + o.Detail
	}
	return s
}

func (n *store) createNote(ctx context.Context, _ *mcp.CallToolRequest, in createInput) (*mcp.CallToolResult, writeOutput, error) {
	rel, err := notePath(in.Path)
	if err != nil {
		return nil, writeOutput{}, err
	}
	note := vault.Note{Title: strings.TrimSpace(in.Title), Tags: vault.NormalizeTags(in.Tags), Body: in.Content}
	if strings.HasPrefix(strings.TrimLeft(in.Content, "\ufeff"), "---\n") {
		if parsed := vault.Parse(in.Content); parsed.Body != in.Content {
			return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "content starts with a front matter block: give the body only, with title and tags as arguments")
		}
	}
	if note.Title == "" {
		note.Title = noteTitle(rel, note)
	}
	hash, err := n.create(ctx, rel, note, in.Overwrite)
	if err != nil {
		return nil, writeOutput{}, err
	}
	return nil, writeOutput{Path: rel, Hash: hash, Changed: true, Tags: allTags(note)}, nil
}

type updateInput struct {
	Path         string `json:"path" jsonschema:"the note to change"`
	Mode         string `json:"mode" jsonschema:"find_replace needs find; replace_section needs heading" schema:"enum=replace|append|prepend|find_replace|replace_section"`
	Content      string `json:"content" jsonschema:"new text (find_replace: the replacement)"`
	Find         string `json:"find,omitempty" jsonschema:"find_replace: the exact text to replace"`
	ReplaceAll   bool   `json:"replace_all,omitempty" jsonschema:"find_replace: every occurrence"`
	Heading      string `json:"heading,omitempty" jsonschema:"replace_section: the heading"`
	Title        string `json:"title,omitempty" jsonschema:"also set the title"`
	ExpectedHash string `json:"expected_hash,omitempty" jsonschema:"hash from get_note; refused if the note changed"`
}

func (n *store) updateNote(ctx context.Context, _ *mcp.CallToolRequest, in updateInput) (*mcp.CallToolResult, writeOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, writeOutput{}, err
	}
	var detail string
	edit := func(note *vault.Note) error {
		body, d, err := applyEdit(note.Body, in)
		if err != nil {
			return err
		}
		note.Body, detail = body, d
		if t := strings.TrimSpace(in.Title); t != "" {
			note.Title = t
		}
		return nil
	}
	if _, err := checkEdit(in); err != nil {
		return nil, writeOutput{}, err
	}
	hash, changed, err := n.change(ctx, rel, strings.TrimSpace(in.ExpectedHash), edit)
	if err != nil {
		return nil, writeOutput{}, err
	}
	return nil, writeOutput{Path: rel, Hash: hash, Changed: changed, Detail: detail}, nil
}

func checkEdit(in updateInput) (string, error) {
	switch in.Mode {
	case "replace", "append", "prepend":
	case "find_replace":
		if in.Find == "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "find_replace needs find: the exact text to replace")
		}
	case "replace_section":
		if strings.TrimSpace(in.Heading) == "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "replace_section needs heading: the heading whose section to replace")
		}
	}
	return in.Mode, nil
}

// applyEdit computes the new body; detail says what happened when that is worth telling.
func applyEdit(body string, in updateInput) (string, string, error) {
	switch in.Mode {
	case "replace":
		return in.Content, "", nil
	case "append":
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		return body + in.Content, "", nil
	case "prepend":
		c := in.Content
		if c != "" && !strings.HasSuffix(c, "\n") {
			c += "\n"
		}
		return c + body, "", nil
	case "find_replace":
		count := strings.Count(body, in.Find)
		switch {
		case count == 0:
			return "", "", kit.Errorf(kit.CodeNotFound, "the text to find does not occur in the note: read it with get_note and copy the text exactly")
		case count > 1 && !in.ReplaceAll:
			return "", "", kit.Errorf(kit.CodeInvalidInput, "the text to find occurs %d times: include more context to make it unique, or pass replace_all: true", count)
		}
		return strings.ReplaceAll(body, in.Find, in.Content), fmt.Sprintf("%d replaced", count), nil
	case "replace_section":
		out, ok := vault.ReplaceSection(body, in.Heading, in.Content)
		if !ok {
			return "", "", kit.Errorf(kit.CodeNotFound, "no heading %q in the note; its headings: %s", in.Heading, headingList(body))
		}
		return out, "", nil
	}
	return "", "", kit.Errorf(kit.CodeInvalidInput, "mode %q is unknown", in.Mode)
}

type tagInput struct {
	Path   string   `json:"path" jsonschema:"the note to tag"`
	Add    []string `json:"add,omitempty" jsonschema:"tags to add"`
	Remove []string `json:"remove,omitempty" jsonschema:"tags to remove"`
}

func (n *store) tagNote(ctx context.Context, _ *mcp.CallToolRequest, in tagInput) (*mcp.CallToolResult, writeOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, writeOutput{}, err
	}
	add, remove := vault.NormalizeTags(in.Add), vault.NormalizeTags(in.Remove)
	if len(add)+len(remove) == 0 {
		return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "give tags to add or remove")
	}
	var tags []string
	hash, changed, err := n.change(ctx, rel, "", func(note *vault.Note) error {
		drop := map[string]bool{}
		for _, t := range remove {
			drop[t] = true
			note.Body = vault.RemoveInlineTag(note.Body, t)
		}
		var keep []string
		for _, t := range append(note.Tags, add...) {
			if !drop[vault.NormalizeTag(t)] {
				keep = append(keep, t)
			}
		}
		note.Tags = vault.NormalizeTags(keep)
		tags = allTags(*note)
		return nil
	})
	if err != nil {
		return nil, writeOutput{}, err
	}
	if tags == nil {
		tags = []string{}
	}
	return nil, writeOutput{Path: rel, Hash: hash, Changed: changed, Tags: tags}, nil
}

type setFieldInput struct {
	Path         string `json:"path" jsonschema:"the note"`
	Field        string `json:"field" jsonschema:"front matter key, e.g. 'status'" schema:"minLength=1,maxLength=100"`
	Value        any    `json:"value,omitempty" jsonschema:"string, number, boolean or list; null removes the field"`
	Type         string `json:"type,omitempty" jsonschema:"how to write value; auto follows its JSON type" schema:"enum=auto|string|number|date|bool|list,default=auto"`
	ExpectedHash string `json:"expected_hash,omitempty" jsonschema:"hash from get_note; refused if the note changed"`
}

func (n *store) setNoteField(ctx context.Context, _ *mcp.CallToolRequest, in setFieldInput) (*mcp.CallToolResult, writeOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, writeOutput{}, err
	}
	field := strings.TrimSpace(in.Field)
	var detail string
	hash, changed, err := n.change(ctx, rel, strings.TrimSpace(in.ExpectedHash), func(note *vault.Note) error {
		if err := note.SetField(field, in.Value, in.Type); err != nil {
			return kit.Errorf(kit.CodeInvalidInput, "%s: %w", field, err)
		}
		if v, ok := note.Fields()[field]; ok {
			b, _ := json.Marshal(v)
			detail = field + " = " + string(b)
		} else {
			detail = field + " removed"
		}
		return nil
	})
	if err != nil {
		return nil, writeOutput{}, err
	}
	return nil, writeOutput{Path: rel, Hash: hash, Changed: changed, Detail: detail}, nil
}
