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
		return kit.Tool{Name: name, Description: desc, ReadOnly: true, Idempotent: true, OpenWorld: true}
	}
	kit.AddTool(s, ro("list_saved_tracks", "List the user's liked (saved) Spotify tracks, newest first, paged."), c.listSavedTracks)
	kit.AddTool(s, kit.Tool{Name: "save_tracks", Description: "Save (like) Spotify tracks, albums, episodes or shows to the user's library.", Idempotent: true, OpenWorld: true}, c.saveTracks)
	kit.AddTool(s, kit.Tool{Name: "remove_saved_tracks", Description: "Remove tracks, albums, episodes or shows from the user's Spotify library.", Destructive: true, Idempotent: true, OpenWorld: true}, c.removeSavedTracks)
	kit.AddTool(s, ro("get_recently_played", "The user's recently played Spotify tracks, newest first."), c.getRecentlyPlayed)
	kit.AddTool(s, ro("get_top_items", "The user's top Spotify tracks or artists over a time range."), c.getTopItems)
}

func (c *client) listSavedTracks(ctx context.Context, _ *mcp.CallToolRequest, in paging) (*mcp.CallToolResult, tracksOutput, error) {
	var page apiPage[apiSavedTrack]
	if err := c.do(ctx, "GET", "me/tracks", in.query(), nil, &page); err != nil {
		return nil, tracksOutput{}, c.fail(ctx, err, "your saved tracks")
	}
	out := tracksOutput{Items: []track{}, Total: page.Total, NextOffset: nextOffset(in, len(page.Items), page.Next)}
	for i := range page.Items {
		out.Items = append(out.Items, page.Items[i].Track.compact())
	}
	return nil, out, nil
}

type libraryInput struct {
	URIs []string `json:"uris" jsonschema:"URIs or links of tracks, albums, episodes or shows (bare ids are tracks)" schema:"minItems=1,maxItems=40"`
}

func libraryURIs(in []string) (string, error) {
	out := make([]string, len(in))
	for i, s := range in {
		uri, kind, _, err := parseURI(s, "track")
		if err != nil {
			return "", err
		}
		switch kind {
		case "track", "album", "episode", "show", "audiobook":
		default:
			return "", kit.Errorf(kit.CodeInvalidInput, "%s: the library holds tracks, albums, episodes, shows and audiobooks", s)
		}
		out[i] = uri
	}
	return strings.Join(out, ","), nil
}

func (c *client) saveTracks(ctx context.Context, _ *mcp.CallToolRequest, in libraryInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.library(ctx, "PUT", in, "Saved %d item(s) to the library")
}

func (c *client) removeSavedTracks(ctx context.Context, _ *mcp.CallToolRequest, in libraryInput) (*mcp.CallToolResult, doneOutput, error) {
	return c.library(ctx, "DELETE", in, "Removed %d item(s) from the library")
}

// library writes through PUT|DELETE /me/library?uris=, the February 2026 endpoint.
func (c *client) library(ctx context.Context, method string, in libraryInput, msg string) (*mcp.CallToolResult, doneOutput, error) {
	uris, err := libraryURIs(in.URIs)
	if err != nil {
		return nil, doneOutput{}, err
	}
	if err := c.do(ctx, method, "me/library", url.Values{"uris": {uris}}, nil, nil); err != nil {
		return nil, doneOutput{}, c.fail(ctx, err, "the library item")
	}
	return nil, doneOutput{Message: fmt.Sprintf(msg, len(in.URIs))}, nil
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
	Type      string `json:"type,omitempty" jsonschema:"top tracks or top artists" schema:"enum=tracks|artists,default=tracks"`
	TimeRange string `json:"time_range,omitempty" jsonschema:"the period: about 4 weeks (short_term), 6 months (medium_term) or several years (long_term)" schema:"enum=short_term|medium_term|long_term,default=medium_term"`
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
