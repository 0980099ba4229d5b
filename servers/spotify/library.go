package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addLibraryTools(s *kit.Server, c *client) {
	ro := func(name, desc string) kit.Tool {
		return kit.Tool{Name: name, Toolset: toolsetLibrary, Description: desc, ReadOnly: true, Idempotent: true, OpenWorld: true}
	}
	kit.AddTool(s, ro("list_saved", "List the user's saved tracks (liked songs), albums or shows, newest first, paged."), c.listSaved)
	kit.AddTool(s, kit.Tool{Name: "edit_library", Toolset: toolsetLibrary, Description: "Save tracks, albums, episodes or shows to the library or remove them; (un)follow playlists.", Destructive: true, Idempotent: true, OpenWorld: true}, c.editLibrary)
	kit.AddTool(s, ro("get_recently_played", "The user's recently played Spotify tracks, newest first."), c.getRecentlyPlayed)
	kit.AddTool(s, ro("get_top_items", "The user's top Spotify tracks or artists over a time range."), c.getTopItems)
}

type listSavedInput struct {
	Type string `json:"type,omitempty" schema:"enum=tracks|albums|shows,default=tracks,bare=true"`
	paging
}

// itemsOutput is one page of tracks, albums or shows.
type itemsOutput struct {
	Items      []item `json:"items"`
	Total      int    `json:"total"`
	NextOffset int    `json:"next_offset,omitempty"` // pass as offset for more
}

func (o itemsOutput) Text() string {
	if len(o.Items) == 0 {
		return "None."
	}
	lines := make([]string, len(o.Items))
	for i, it := range o.Items {
		lines[i] = it.describe()
		if it.Release != "" {
			lines[i] += ", " + it.Release
		}
	}
	if o.NextOffset > 0 {
		lines = append(lines, fmt.Sprintf("(%d in all; more: offset %d)", o.Total, o.NextOffset))
	}
	return strings.Join(lines, "\n")
}

// listSaved reads GET /me/tracks, /me/albums or /me/shows, which the February 2026 API keeps
// (only the writes moved to /me/library).
func (c *client) listSaved(ctx context.Context, _ *mcp.CallToolRequest, in listSavedInput) (*mcp.CallToolResult, itemsOutput, error) {
	// The schema holds type to the three values and defaults it.
	var page apiPage[apiSaved]
	if err := c.do(ctx, "GET", "me/"+in.Type, in.query(), nil, &page); err != nil {
		return nil, itemsOutput{}, c.fail(ctx, err, "your saved "+in.Type)
	}
	out := itemsOutput{Items: []item{}, Total: page.Total, NextOffset: nextOffset(in.paging, len(page.Items), page.Next)}
	for i := range page.Items {
		s := &page.Items[i]
		switch {
		case s.Track != nil:
			out.Items = append(out.Items, trackItem(s.Track))
		case s.Album != nil:
			out.Items = append(out.Items, albumItem(s.Album))
		case s.Show != nil:
			out.Items = append(out.Items, item{Type: "show", Name: s.Show.Name, URI: s.Show.URI, By: s.Show.Publisher})
		}
	}
	return nil, out, nil
}

type libraryInput struct {
	URIs []string `json:"uris" jsonschema:"URIs or links (bare ids are tracks)" schema:"minItems=1,maxItems=40"`
}

// libraryURIs checks the kinds PUT|DELETE /me/library takes with the server's scopes (artists
// and users would need user-follow-modify, which the sign-in does not ask for).
func libraryURIs(in []string) (string, int, error) {
	out := make([]string, len(in))
	playlists := 0
	for i, s := range in {
		uri, kind, _, err := parseURI(s, "track")
		if err != nil {
			return "", 0, err
		}
		switch kind {
		case "track", "album", "episode", "show", "audiobook":
		case "playlist":
			playlists++
		default:
			return "", 0, kit.Errorf(kit.CodeInvalidInput, "%s is %s: the library holds tracks, albums, episodes, shows, audiobooks and playlists", s, withArticle(kind))
		}
		out[i] = uri
	}
	return strings.Join(out, ","), playlists, nil
}

func (c *client) saveToLibrary(ctx context.Context, _ *mcp.CallToolRequest, in libraryInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.library(ctx, "PUT", in, "Saved %d item(s) to the library", " (%d playlist(s) followed)")
}

func (c *client) removeFromLibrary(ctx context.Context, _ *mcp.CallToolRequest, in libraryInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.library(ctx, "DELETE", in, "Removed %d item(s) from the library", " (%d playlist(s) unfollowed)")
}

// library writes through PUT|DELETE /me/library?uris=, the February 2026 endpoint that
// replaced the per-kind ones (/me/tracks, /me/albums, /me/shows, /playlists/{id}/followers…).
func (c *client) library(ctx context.Context, method string, in libraryInput, msg, plMsg string) (*mcp.CallToolResult, doneOutput, error) {
	uris, playlists, err := libraryURIs(in.URIs)
	if err != nil {
		return nil, doneOutput{}, err
	}
	if err := c.do(ctx, method, "me/library", url.Values{"uris": {uris}}, nil, nil); err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "the library item")
	}
	out := fmt.Sprintf(msg, len(in.URIs))
	if playlists > 0 {
		out += fmt.Sprintf(plMsg, playlists)
	}
	return nil, doneOutput{Message: out}, nil
}

type recentInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"how many to return" schema:"minimum=1,maximum=50,default=20"`
}

type playedTrack struct {
	track
	PlayedAt time.Time `json:"played_at"`
}

type recentOutput struct {
	Items []playedTrack `json:"items"`
}

func (o recentOutput) Text() string {
	if len(o.Items) == 0 {
		return "Nothing played recently."
	}
	lines := make([]string, len(o.Items))
	for i, t := range o.Items {
		lines[i] = t.PlayedAt.Format("2006-01-02 15:04") + "  " + t.String()
	}
	return strings.Join(lines, "\n")
}

func (c *client) getRecentlyPlayed(ctx context.Context, _ *mcp.CallToolRequest, in recentInput) (*mcp.CallToolResult, recentOutput, error) {
	var page apiPage[apiPlayed]
	if err := c.do(ctx, "GET", "me/player/recently-played", url.Values{"limit": {strconv.Itoa(in.Limit)}}, nil, &page); err != nil {
		return nil, recentOutput{}, c.fail(ctx, err, "recently played")
	}
	out := recentOutput{Items: []playedTrack{}}
	for i := range page.Items {
		out.Items = append(out.Items, playedTrack{track: page.Items[i].Track.compact(), PlayedAt: page.Items[i].PlayedAt})
	}
	return nil, out, nil
}

type topInput struct {
	Type      string `json:"type,omitempty" schema:"enum=tracks|artists,default=tracks,bare=true"`
	TimeRange string `json:"time_range,omitempty" jsonschema:"about 4 weeks, 6 months or several years" schema:"enum=short_term|medium_term|long_term,default=medium_term"`
	paging
}

func (c *client) getTopItems(ctx context.Context, _ *mcp.CallToolRequest, in topInput) (*mcp.CallToolResult, searchOutput, error) {
	// The schema holds type and time_range to Spotify's own values and defaults them.
	q := in.query()
	q.Set("time_range", in.TimeRange)
	out := searchOutput{Items: []item{}}
	switch in.Type {
	case "tracks":
		var page apiPage[apiTrack]
		if err := c.do(ctx, "GET", "me/top/tracks", q, nil, &page); err != nil {
			return nil, searchOutput{}, c.fail(ctx, err, "top tracks")
		}
		for i := range page.Items {
			out.Items = append(out.Items, trackItem(&page.Items[i]))
		}
		out.NextOffset = nextOffset(in.paging, len(page.Items), page.Next)
	case "artists":
		var page apiPage[apiArtist]
		if err := c.do(ctx, "GET", "me/top/artists", q, nil, &page); err != nil {
			return nil, searchOutput{}, c.fail(ctx, err, "top artists")
		}
		for _, a := range page.Items {
			out.Items = append(out.Items, item{Type: "artist", Name: a.Name, URI: a.URI})
		}
		out.NextOffset = nextOffset(in.paging, len(page.Items), page.Next)
	}
	return nil, out, nil
}
