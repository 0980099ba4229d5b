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

func (c *client) listSavedTracks(ctx context.Context, _ *mcp.CallToolRequest, in pageInput) (*mcp.CallToolResult, tracksOutput, error) {
	q, err := in.query()
	if err != nil {
		return nil, tracksOutput{}, err
	}
	var page apiPage[apiSavedTrack]
	if err := c.do(ctx, "GET", "me/tracks", q, nil, &page); err != nil {
		return nil, tracksOutput{}, c.fail(ctx, err, "your saved tracks")
	}
	out := tracksOutput{Items: []track{}, Total: page.Total, NextOffset: nextOffset(in, len(page.Items), page.Next)}
	for i := range page.Items {
		out.Items = append(out.Items, page.Items[i].Track.compact())
	}
	return nil, out, nil
}

type libraryInput struct {
	URIs []string `json:"uris" jsonschema:"URIs or links of tracks, albums, episodes or shows (bare ids are tracks), at most 40"`
}

func libraryURIs(in []string) (string, error) {
	if len(in) == 0 || len(in) > 40 {
		return "", kit.Errorf(kit.CodeInvalidInput, "give 1 to 40 uris")
	}
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
	Limit int `json:"limit,omitempty" jsonschema:"1-50 (default 20)"`
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
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	if limit < 1 || limit > 50 {
		return nil, recentOutput{}, kit.Errorf(kit.CodeInvalidInput, "limit must be 1-50")
	}
	var page apiPage[apiPlayed]
	if err := c.do(ctx, "GET", "me/player/recently-played", url.Values{"limit": {strconv.Itoa(limit)}}, nil, &page); err != nil {
		return nil, recentOutput{}, c.fail(ctx, err, "recently played")
	}
	out := recentOutput{Items: []playedTrack{}}
	for i := range page.Items {
		out.Items = append(out.Items, playedTrack{track: page.Items[i].Track.compact(), PlayedAt: page.Items[i].PlayedAt})
	}
	return nil, out, nil
}

type topInput struct {
	Type      string `json:"type,omitempty" jsonschema:"tracks (default) or artists"`
	TimeRange string `json:"time_range,omitempty" jsonschema:"short (4 weeks), medium (6 months, default) or long (years)"`
	pageInput
}

func (c *client) getTopItems(ctx context.Context, _ *mcp.CallToolRequest, in topInput) (*mcp.CallToolResult, searchOutput, error) {
	q, err := in.query()
	if err != nil {
		return nil, searchOutput{}, err
	}
	switch tr := strings.TrimSuffix(strings.ToLower(in.TimeRange), "_term"); tr {
	case "":
		q.Set("time_range", "medium_term")
	case "short", "medium", "long":
		q.Set("time_range", tr+"_term")
	default:
		return nil, searchOutput{}, kit.Errorf(kit.CodeInvalidInput, "time_range %q: give short, medium or long", in.TimeRange)
	}
	out := searchOutput{Items: []item{}}
	switch strings.ToLower(in.Type) {
	case "", "tracks", "track":
		var page apiPage[apiTrack]
		if err := c.do(ctx, "GET", "me/top/tracks", q, nil, &page); err != nil {
			return nil, searchOutput{}, c.fail(ctx, err, "top tracks")
		}
		for i := range page.Items {
			out.Items = append(out.Items, trackItem(&page.Items[i]))
		}
		out.NextOffset = nextOffset(in.pageInput, len(page.Items), page.Next)
	case "artists", "artist":
		var page apiPage[apiArtist]
		if err := c.do(ctx, "GET", "me/top/artists", q, nil, &page); err != nil {
			return nil, searchOutput{}, c.fail(ctx, err, "top artists")
		}
		for _, a := range page.Items {
			out.Items = append(out.Items, item{Type: "artist", Name: a.Name, URI: a.URI})
		}
		out.NextOffset = nextOffset(in.pageInput, len(page.Items), page.Next)
	default:
		return nil, searchOutput{}, kit.Errorf(kit.CodeInvalidInput, "type %q: give tracks or artists", in.Type)
	}
	return nil, out, nil
}
