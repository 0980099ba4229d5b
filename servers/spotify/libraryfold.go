package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// editLibraryInput is edit_library's input: save items to the library or remove them (one
// tool where save_to_library and remove_from_library took the same list).
type editLibraryInput struct {
	Action string   `json:"action" jsonschema:"save (follows a playlist) or remove (unfollows; deletes the user's own)" schema:"enum=save|remove"`
	URIs   []string `json:"uris" jsonschema:"URIs or links (bare ids are tracks)" schema:"minItems=1,maxItems=40"`
}

// editLibrary saves or removes library items (saveToLibrary, removeFromLibrary).
func (c *client) editLibrary(ctx context.Context, req *mcp.CallToolRequest, in editLibraryInput) (*mcp.CallToolResult, doneOutput, error) {
	switch in.Action {
	case "save":
		return c.saveToLibrary(ctx, req, libraryInput{URIs: in.URIs})
	case "remove":
		return c.removeFromLibrary(ctx, req, libraryInput{URIs: in.URIs})
	}
	return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "unknown action %q: give save or remove", in.Action)
}
