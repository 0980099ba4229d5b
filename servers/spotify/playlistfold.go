package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// editItemsInput is edit_playlist_items' input: add, remove or move items of one playlist (one
// tool where add_to_playlist, remove_from_playlist and reorder_playlist named the same playlist).
type editItemsInput struct {
	Action       string   `json:"action" jsonschema:"add uris (at position), remove all of uris, or move a run of items" schema:"enum=add|remove|move"`
	Playlist     string   `json:"playlist" jsonschema:"playlist URI, link or id" schema:"minLength=1"`
	URIs         []string `json:"uris,omitempty" jsonschema:"track or episode URIs or links (bare ids: tracks)" schema:"minItems=1,maxItems=100"`
	Position     *int     `json:"position,omitempty" jsonschema:"add: 0-based index (default: the end)" schema:"minimum=0"`
	RangeStart   *int     `json:"range_start,omitempty" jsonschema:"move: 0-based index of the first item" schema:"minimum=0"`
	RangeLength  int      `json:"range_length,omitempty" jsonschema:"move: how many items (default 1)" schema:"minimum=1"`
	InsertBefore *int     `json:"insert_before,omitempty" jsonschema:"move: 0-based index to move them before" schema:"minimum=0"`
}

// editPlaylistItems adds, removes or moves playlist items (addToPlaylist, removeFromPlaylist,
// reorderPlaylist).
func (c *client) editPlaylistItems(ctx context.Context, req *mcp.CallToolRequest, in editItemsInput) (*mcp.CallToolResult, snapshotOutput, error) {
	switch in.Action {
	case "add", "remove":
		if len(in.URIs) == 0 {
			return nil, snapshotOutput{}, kit.Errorf(kit.CodeInvalidInput, "action %s needs uris", in.Action)
		}
		if in.Action == "add" {
			return c.addToPlaylist(ctx, req, playlistEditInput{Playlist: in.Playlist, URIs: in.URIs, Position: in.Position})
		}
		return c.removeFromPlaylist(ctx, req, removeInput{Playlist: in.Playlist, URIs: in.URIs})
	case "move":
		if in.RangeStart == nil || in.InsertBefore == nil {
			return nil, snapshotOutput{}, kit.Errorf(kit.CodeInvalidInput, "action move needs range_start and insert_before")
		}
		return c.reorderPlaylist(ctx, req, reorderInput{Playlist: in.Playlist, RangeStart: *in.RangeStart, RangeLength: max(in.RangeLength, 1), InsertBefore: *in.InsertBefore})
	}
	return nil, snapshotOutput{}, kit.Errorf(kit.CodeInvalidInput, "unknown action %q: give add, remove or move", in.Action)
}
