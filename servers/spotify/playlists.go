package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A playlist's entries are under "items" and each entry's object under "item" in the
// February 2026 Web API (older answers said "tracks" and "track"; both are read).
type playlistEntry struct {
	AddedAt string    `json:"added_at"`
	Item    *apiTrack `json:"item"`
	Track   *apiTrack `json:"track"`
}

func (e playlistEntry) track() (track, bool) {
	t := e.Item
	if t == nil {
		t = e.Track
	}
	if t == nil || t.URI == "" {
		return track{}, false
	}
	return t.compact(), true
}

type entryPage struct {
	Items []playlistEntry `json:"items"`
	Total int             `json:"total"`
	Next  string          `json:"next"`
}

type owner struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
}

type apiPlaylist struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	URI           string    `json:"uri"`
	Description   string    `json:"description"`
	Public        *bool     `json:"public"`
	Collaborative bool      `json:"collaborative"`
	Owner         owner     `json:"owner"`
	Items         entryPage `json:"items"`
	Tracks        entryPage `json:"tracks"` // pre-2026 name of items
}

func (c *client) playlist(ctx context.Context, id string) (*apiPlaylist, error) {
	var p apiPlaylist
	if err := c.do(ctx, "GET", "playlists/"+url.PathEscape(id), url.Values{"additional_types": {"track,episode"}}, nil, &p); err != nil {
		return nil, err
	}
	if p.Items.Total == 0 && len(p.Items.Items) == 0 {
		p.Items = p.Tracks
	}
	return &p, nil
}

func addPlaylistTools(s *kit.Server, c *client) {
	ro := func(name, desc string) kit.Tool {
		return kit.Tool{Name: name, Toolset: toolsetPlaylists, Description: desc, ReadOnly: true, Idempotent: true, OpenWorld: true}
	}
	kit.AddTool(s, ro("list_playlists", "List the user's Spotify playlists (owned and followed)."), c.listPlaylists)
	kit.AddTool(s, ro("get_playlist_items", "List the tracks of a playlist the user owns or collaborates on, paged."), c.getPlaylistItems)
	kit.AddTool(s, kit.Tool{Name: "create_playlist", Toolset: toolsetPlaylists, Description: "Create a Spotify playlist for the user.", OpenWorld: true}, c.createPlaylist)
	kit.AddTool(s, kit.Tool{Name: "edit_playlist_items", Toolset: toolsetPlaylists, Description: "Add tracks or episodes to a playlist, remove them, or move a run of items.", Destructive: true, OpenWorld: true}, c.editPlaylistItems)
	kit.AddTool(s, kit.Tool{Name: "update_playlist", Toolset: toolsetPlaylists, Description: "Change a Spotify playlist's name, description or visibility.", Destructive: true, Idempotent: true, OpenWorld: true}, c.updatePlaylist)
}

// paging is the limit and offset of a paged list, embedded in a tool's arguments (the kit
// applies the schema tags of embedded fields as encoding/json promotes them).
type paging struct {
	Limit  int `json:"limit,omitempty" jsonschema:"how many to return" schema:"minimum=1,maximum=50,default=20"`
	Offset int `json:"offset,omitempty" jsonschema:"skip this many, for the next page (next_offset of the last answer)" schema:"minimum=0,default=0"`
}

func (p paging) query() url.Values {
	return url.Values{"limit": {strconv.Itoa(p.Limit)}, "offset": {strconv.Itoa(p.Offset)}}
}

func nextOffset(in paging, got int, next string) int {
	if next == "" {
		return 0
	}
	return in.Offset + got
}

type playlistSummary struct {
	Name   string `json:"name"`
	URI    string `json:"uri"`
	Owner  string `json:"owner"`
	Tracks int    `json:"tracks"`
}

type playlistsOutput struct {
	Playlists  []playlistSummary `json:"playlists"`
	Total      int               `json:"total"`
	NextOffset int               `json:"next_offset,omitempty"`
}

func (o playlistsOutput) Text() string {
	lines := make([]string, 0, len(o.Playlists)+1)
	for _, p := range o.Playlists {
		lines = append(lines, fmt.Sprintf("%s — %d items, by %s (%s)", p.Name, p.Tracks, p.Owner, p.URI))
	}
	if o.NextOffset > 0 {
		lines = append(lines, fmt.Sprintf("(%d in all; more: offset %d)", o.Total, o.NextOffset))
	}
	if len(lines) == 0 {
		return "No playlists."
	}
	return strings.Join(lines, "\n")
}

func (c *client) listPlaylists(ctx context.Context, _ *mcp.CallToolRequest, in paging) (*mcp.CallToolResult, playlistsOutput, error) {
	q := in.query()
	var page struct {
		Items []apiPlaylist `json:"items"`
		Total int           `json:"total"`
		Next  string        `json:"next"`
	}
	if err := c.do(ctx, "GET", "me/playlists", q, nil, &page); err != nil {
		return nil, playlistsOutput{}, c.fail(ctx, err, "your playlists")
	}
	out := playlistsOutput{Playlists: []playlistSummary{}, Total: page.Total, NextOffset: nextOffset(in, len(page.Items), page.Next)}
	for _, p := range page.Items {
		n := p.Items.Total
		if n == 0 {
			n = p.Tracks.Total
		}
		out.Playlists = append(out.Playlists, playlistSummary{Name: p.Name, URI: p.URI, Owner: p.Owner.DisplayName, Tracks: n})
	}
	return nil, out, nil
}

type playlistItemsInput struct {
	Playlist string `json:"playlist" jsonschema:"playlist URI, link or id" schema:"minLength=1"`
	paging
}

type tracksOutput struct {
	Items      []track `json:"items"`
	Total      int     `json:"total,omitempty"`
	NextOffset int     `json:"next_offset,omitempty"`
}

func (o tracksOutput) Text() string {
	if len(o.Items) == 0 {
		return "No items."
	}
	lines := make([]string, len(o.Items))
	for i, t := range o.Items {
		lines[i] = t.String()
	}
	s := strings.Join(lines, "\n")
	if o.NextOffset > 0 {
		s += fmt.Sprintf("\n(%d in all; more: offset %d)", o.Total, o.NextOffset)
	}
	return s
}

func (c *client) getPlaylistItems(ctx context.Context, _ *mcp.CallToolRequest, in playlistItemsInput) (*mcp.CallToolResult, tracksOutput, error) {
	_, id, err := parseKind(in.Playlist, "playlist")
	if err != nil {
		return nil, tracksOutput{}, err
	}
	q := in.query()
	q.Set("additional_types", "track,episode")
	var page entryPage
	if err := c.do(ctx, "GET", "playlists/"+url.PathEscape(id)+"/items", q, nil, &page); err != nil {
		return nil, tracksOutput{}, c.fail(ctx, err, "playlist "+in.Playlist)
	}
	out := tracksOutput{Items: []track{}, Total: page.Total, NextOffset: nextOffset(in.paging, len(page.Items), page.Next)}
	for _, e := range page.Items {
		if t, ok := e.track(); ok {
			out.Items = append(out.Items, t)
		}
	}
	return nil, out, nil
}

type createPlaylistInput struct {
	Name        string `json:"name" jsonschema:"playlist name" schema:"minLength=1"`
	Description string `json:"description,omitempty" schema:"bare=true"`
	Public      bool   `json:"public,omitempty" jsonschema:"show it on the profile (default: private)"`
}

func (c *client) createPlaylist(ctx context.Context, _ *mcp.CallToolRequest, in createPlaylistInput) (*mcp.CallToolResult, doneOutput, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "name is blank: give the playlist a name")
	}
	body := map[string]any{"name": in.Name, "public": in.Public}
	if in.Description != "" {
		body["description"] = in.Description
	}
	var p apiPlaylist
	if err := c.do(ctx, "POST", "me/playlists", nil, body, &p); err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "the new playlist")
	}
	return nil, doneOutput{Message: fmt.Sprintf("Created playlist %q (%s)", p.Name, p.URI), URI: p.URI}, nil
}

type playlistEditInput struct {
	Playlist string   `json:"playlist" jsonschema:"playlist URI, link or id" schema:"minLength=1"`
	URIs     []string `json:"uris" jsonschema:"track or episode URIs or links (bare ids are tracks)" schema:"minItems=1,maxItems=100"`
	Position *int     `json:"position,omitempty" jsonschema:"0-based index to insert at (default: the end)" schema:"minimum=0"`
}

type snapshotOutput struct {
	Message    string `json:"message"`
	SnapshotID string `json:"snapshot_id,omitempty"`
}

func (o snapshotOutput) Text() string { return o.Message }

func itemURIs(in []string) ([]string, error) {
	out := make([]string, len(in))
	for i, s := range in {
		uri, kind, _, err := parseURI(s, "track")
		if err != nil {
			return nil, err
		}
		if kind != "track" && kind != "episode" {
			return nil, kit.Errorf(kit.CodeInvalidInput, "%s: playlists hold tracks and episodes only", s)
		}
		out[i] = uri
	}
	return out, nil
}

func (c *client) addToPlaylist(ctx context.Context, _ *mcp.CallToolRequest, in playlistEditInput) (*mcp.CallToolResult, snapshotOutput, error) {
	_, id, err := parseKind(in.Playlist, "playlist")
	if err != nil {
		return nil, snapshotOutput{}, err
	}
	uris, err := itemURIs(in.URIs)
	if err != nil {
		return nil, snapshotOutput{}, err
	}
	body := map[string]any{"uris": uris}
	if in.Position != nil {
		body["position"] = *in.Position
	}
	var res struct {
		SnapshotID string `json:"snapshot_id"`
	}
	if err := c.do(ctx, "POST", "playlists/"+url.PathEscape(id)+"/items", nil, body, &res); err != nil {
		return nil, snapshotOutput{}, c.fail(ctx, err, "playlist "+in.Playlist)
	}
	return nil, snapshotOutput{Message: fmt.Sprintf("Added %d item(s) to the playlist", len(uris)), SnapshotID: res.SnapshotID}, nil
}

type removeInput struct {
	Playlist string   `json:"playlist" jsonschema:"playlist URI, link or id" schema:"minLength=1"`
	URIs     []string `json:"uris" jsonschema:"track or episode URIs or links to remove" schema:"minItems=1,maxItems=100"`
}

func (c *client) removeFromPlaylist(ctx context.Context, _ *mcp.CallToolRequest, in removeInput) (*mcp.CallToolResult, snapshotOutput, error) {
	_, id, err := parseKind(in.Playlist, "playlist")
	if err != nil {
		return nil, snapshotOutput{}, err
	}
	uris, err := itemURIs(in.URIs)
	if err != nil {
		return nil, snapshotOutput{}, err
	}
	items := make([]map[string]string, len(uris))
	for i, u := range uris {
		items[i] = map[string]string{"uri": u}
	}
	var res struct {
		SnapshotID string `json:"snapshot_id"`
	}
	if err := c.do(ctx, "DELETE", "playlists/"+url.PathEscape(id)+"/items", nil, map[string]any{"items": items}, &res); err != nil {
		return nil, snapshotOutput{}, c.fail(ctx, err, "playlist "+in.Playlist)
	}
	return nil, snapshotOutput{Message: fmt.Sprintf("Removed %d item(s) from the playlist", len(uris)), SnapshotID: res.SnapshotID}, nil
}

type reorderInput struct {
	Playlist     string `json:"playlist" jsonschema:"playlist URI, link or id" schema:"minLength=1"`
	RangeStart   int    `json:"range_start" jsonschema:"0-based index of the first item to move" schema:"minimum=0"`
	RangeLength  int    `json:"range_length,omitempty" jsonschema:"how many items to move" schema:"minimum=1,default=1"`
	InsertBefore int    `json:"insert_before" jsonschema:"0-based index to move them before" schema:"minimum=0"`
}

func (c *client) reorderPlaylist(ctx context.Context, _ *mcp.CallToolRequest, in reorderInput) (*mcp.CallToolResult, snapshotOutput, error) {
	_, id, err := parseKind(in.Playlist, "playlist")
	if err != nil {
		return nil, snapshotOutput{}, err
	}
	n := in.RangeLength
	body := map[string]any{"range_start": in.RangeStart, "range_length": n, "insert_before": in.InsertBefore}
	var res struct {
		SnapshotID string `json:"snapshot_id"`
	}
	if err := c.do(ctx, "PUT", "playlists/"+url.PathEscape(id)+"/items", nil, body, &res); err != nil {
		return nil, snapshotOutput{}, c.fail(ctx, err, "playlist "+in.Playlist)
	}
	return nil, snapshotOutput{Message: fmt.Sprintf("Moved %d item(s) from %d to before %d", n, in.RangeStart, in.InsertBefore), SnapshotID: res.SnapshotID}, nil
}

type updatePlaylistInput struct {
	Playlist    string  `json:"playlist" jsonschema:"playlist URI, link or id (one the user owns)" schema:"minLength=1"`
	Name        string  `json:"name,omitempty" jsonschema:"the new name (default: unchanged)"`
	Description *string `json:"description,omitempty" jsonschema:"new description; \"\" clears it"`
	Visibility  string  `json:"visibility,omitempty" schema:"enum=public|private|collaborative,bare=true"`
}

// updatePlaylist changes a playlist's details with PUT /playlists/{id}, which Spotify allows
// only to the playlist's owner (403 otherwise).
func (c *client) updatePlaylist(ctx context.Context, _ *mcp.CallToolRequest, in updatePlaylistInput) (*mcp.CallToolResult, doneOutput, error) {
	uri, id, err := parseKind(in.Playlist, "playlist")
	if err != nil {
		return nil, doneOutput{}, err
	}
	body := map[string]any{}
	var changed []string
	if in.Name != "" {
		if strings.TrimSpace(in.Name) == "" {
			return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "name is blank: give the new name, or leave name out to keep it")
		}
		body["name"] = in.Name
		changed = append(changed, fmt.Sprintf("name %q", in.Name))
	}
	if in.Description != nil {
		body["description"] = *in.Description
		changed = append(changed, fmt.Sprintf("description %q", *in.Description))
	}
	switch in.Visibility {
	case "public":
		body["public"], body["collaborative"] = true, false
	case "private":
		body["public"], body["collaborative"] = false, false
	case "collaborative":
		body["public"], body["collaborative"] = false, true
	}
	if in.Visibility != "" {
		changed = append(changed, "visibility "+in.Visibility)
	}
	if len(body) == 0 {
		return nil, doneOutput{}, kit.Errorf(kit.CodeInvalidInput, "nothing to change: give name, description or visibility")
	}
	if err := c.do(ctx, "PUT", "playlists/"+url.PathEscape(id), nil, body, nil); err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "playlist "+in.Playlist)
	}
	return nil, doneOutput{Message: "Changed the playlist's " + strings.Join(changed, ", "), URI: uri}, nil
}
