package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addOrganizeTools(s *kit.Server, n *store) {
	kit.AddTool(s, kit.Tool{Name: "move_note", Toolset: toolsetWrite, Title: "Move note",
		Description: "Move or rename a note, rewriting the [[wikilinks]] that point to it."}, n.moveNote)
	kit.AddTool(s, kit.Tool{Name: "delete_note", Toolset: toolsetWrite, Title: "Delete note", Destructive: true,
		Description: "Move a note to the trash (.trash/); restore_note brings it back."}, n.deleteNote)
	kit.AddTool(s, kit.Tool{Name: "restore_note", Toolset: toolsetWrite, Title: "Restore note",
		Description: "Bring a note back from the trash (list it with list_notes trashed: true)."}, n.restoreNote)
}

type moveInput struct {
	Path    string `json:"path" jsonschema:"the note to move"`
	NewPath string `json:"new_path" jsonschema:"where it goes, e.g. 'archive/garden.md'"`
}

type moveOutput struct {
	Path         string   `json:"path"`
	LinksUpdated int      `json:"links_updated"`
	NotesUpdated []string `json:"notes_updated"`
	Failed       []string `json:"failed,omitempty" jsonschema:"notes whose links could not be rewritten"`
}

func (o moveOutput) Text() string {
	s := fmt.Sprintf("moved to %s; %d links rewritten in %d notes", o.Path, o.LinksUpdated, len(o.NotesUpdated))
	if len(o.Failed) > 0 {
		s += "; could not rewrite links in: " + strings.Join(o.Failed, ", ")
	}
	return s
}

func (n *store) moveNote(ctx context.Context, _ *mcp.CallToolRequest, in moveInput) (*mcp.CallToolResult, moveOutput, error) {
	from, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, moveOutput{}, err
	}
	to, err := notePath(in.NewPath)
	if err != nil {
		return nil, moveOutput{}, err
	}
	if from == to {
		return nil, moveOutput{}, kit.Errorf(kit.CodeInvalidInput, "path and new_path are the same")
	}
	if err := n.fresh(ctx); err != nil {
		return nil, moveOutput{}, err
	}
	ix, release, note, err := n.readable(ctx)
	if err != nil {
		return nil, moveOutput{}, err
	}
	defer release()
	if note != "" {
		return nil, moveOutput{}, kit.Errorf(kit.CodeUnavailable, "move_note needs the whole index to find the links to rewrite, and %s; try again in a moment", note)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.v.Exists(from) {
		_, _, err := n.read(from)
		return nil, moveOutput{}, err
	}
	referrers, err := ix.Backlinks(ctx, from)
	if err != nil {
		return nil, moveOutput{}, kit.Errorf(kit.CodeInternal, "find links: %w", n.readError(err))
	}
	if err := n.v.Move(from, to); err != nil {
		if errors.Is(err, vault.ErrExists) {
			return nil, moveOutput{}, kit.Errorf(kit.CodeInvalidInput, "%s already exists: choose another new_path", to)
		}
		return nil, moveOutput{}, kit.Errorf(kit.CodeInvalidInput, "move %s: %w", from, err)
	}
	out := moveOutput{Path: to, NotesUpdated: []string{}}
	oldPath, oldStem := vault.LinkKey(from), vault.LinkKey(vault.Stem(from))
	newStem := vault.LinkKey(vault.Stem(to))
	rewrite := func(target string) (string, bool) {
		key := vault.LinkKey(target)
		switch {
		case key == oldPath && strings.Contains(strings.Trim(target, "/"), "/"):
			return noExt(to), true
		case key == oldStem || key == oldPath:
			if newStem == oldStem {
				return "", false // still resolves by its file name
			}
			return noExt(to), true
		}
		return "", false
	}
	touched := []string{from, to}
	for _, r := range referrers {
		src := r
		if src == from {
			src = to
		}
		data, err := n.v.ReadFile(src)
		if err != nil {
			out.Failed = append(out.Failed, src)
			continue
		}
		note := vault.Parse(string(data))
		body, count := vault.RewriteLinks(note.Body, rewrite)
		if count == 0 {
			continue
		}
		note.Body = body
		note.Updated = n.now().Truncate(1e9)
		if err := n.v.Write(src, []byte(note.Render()), false); err != nil {
			out.Failed = append(out.Failed, src)
			continue
		}
		out.LinksUpdated += count
		out.NotesUpdated = append(out.NotesUpdated, src)
		touched = append(touched, src)
	}
	n.reindex(ctx, touched...)
	return nil, out, nil
}

type deleteOutput struct {
	Path      string `json:"path"`
	TrashPath string `json:"trash_path"`
}

func (o deleteOutput) Text() string {
	return fmt.Sprintf("%s moved to the trash as %s; restore_note brings it back", o.Path, o.TrashPath)
}

func (n *store) deleteNote(ctx context.Context, _ *mcp.CallToolRequest, in pathInput) (*mcp.CallToolResult, deleteOutput, error) {
	rel, err := n.existing(ctx, in.Path)
	if err != nil {
		return nil, deleteOutput{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.v.Exists(rel) {
		_, _, err := n.read(rel)
		return nil, deleteOutput{}, err
	}
	trash, err := n.trash(rel)
	if err != nil {
		return nil, deleteOutput{}, kit.Errorf(kit.CodeInternal, "%w", err)
	}
	n.reindex(ctx, rel)
	return nil, deleteOutput{Path: rel, TrashPath: trash}, nil
}

// trash moves the note at rel into the trash folder, adding a timestamp when its path there is
// taken, and returns where it went; the caller holds mu and re-indexes rel.
func (n *store) trash(rel string) (string, error) {
	to := vault.TrashDir + "/" + rel
	if n.v.Exists(to) {
		to = vault.TrashDir + "/" + noExt(rel) + "." + n.now().Format("20060102T150405.000000000") + vault.Ext
	}
	if err := n.v.Move(rel, to); err != nil {
		return "", fmt.Errorf("move %s to the trash: %w", rel, err)
	}
	return to, nil
}

type restoreInput struct {
	TrashPath string `json:"trash_path" jsonschema:"the trash path delete_note returned"`
	NewPath   string `json:"new_path,omitempty" jsonschema:"default: where it was"`
}

var trashStamp = regexp.MustCompile(`\.\d{8}T\d{6}\.\d{9}$`)

func (n *store) restoreNote(ctx context.Context, _ *mcp.CallToolRequest, in restoreInput) (*mcp.CallToolResult, writeOutput, error) {
	trash, err := vault.CleanTrashPath(in.TrashPath)
	if err != nil {
		return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "trash_path: %w", err)
	}
	dest := in.NewPath
	if dest == "" {
		orig := noExt(strings.TrimPrefix(trash, vault.TrashDir+"/"))
		dest = path.Clean(trashStamp.ReplaceAllString(orig, "")) + vault.Ext
	}
	to, err := notePath(dest)
	if err != nil {
		return nil, writeOutput{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.v.Exists(trash) {
		return nil, writeOutput{}, kit.Errorf(kit.CodeNotFound, "%s is not in the trash; list it with list_notes trashed: true", trash)
	}
	if err := n.v.Move(trash, to); err != nil {
		if errors.Is(err, vault.ErrExists) {
			return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "%s already exists: give new_path to restore it elsewhere", to)
		}
		return nil, writeOutput{}, kit.Errorf(kit.CodeInternal, "restore %s: %w", trash, err)
	}
	data, _ := n.v.ReadFile(to)
	n.reindex(ctx, to)
	return nil, writeOutput{Path: to, Hash: vault.Hash(data), Changed: true, Detail: "restored from " + trash}, nil
}
