package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchPage is Spotify's largest search page since February 2026.
const searchPage = 10

// searchMaxOffset is the largest offset Spotify's search accepts.
const searchMaxOffset = 1000

// artistAlbumsPage is Spotify's largest page of an artist's albums for apps created in 2026
// (a larger limit is refused with 400 "Invalid limit").
const artistAlbumsPage = 10

// item is one search result or catalog object, compact.
type item struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	URI     string `json:"uri"`
	By      string `json:"by,omitempty"` // artists, owner or publisher
	Album   string `json:"album,omitempty"`
	Release string `json:"release,omitempty"`
	Tracks  int    `json:"tracks,omitempty"`
}

func (i item) describe() string {
	s := i.Type + " " + fmt.Sprintf("%q", i.Name)
	if i.By != "" {
		s += " by " + i.By
	}
	return s + " (" + i.URI + ")"
}

// searchItems flattens a result in a fixed order: tracks, albums, artists, playlists, shows, episodes.
func searchItems(r *apiSearch) []item {
	var out []item
	if r.Tracks != nil {
		for _, t := range r.Tracks.Items {
			out = append(out, trackItem(&t))
		}
	}
	if r.Albums != nil {
		for i := range r.Albums.Items {
			out = append(out, albumItem(&r.Albums.Items[i]))
		}
	}
	if r.Artists != nil {
		for _, a := range r.Artists.Items {
			out = append(out, item{Type: "artist", Name: a.Name, URI: a.URI})
		}
	}
	if r.Playlists != nil {
		for _, p := range r.Playlists.Items {
			if p.URI == "" { // Spotify sends null for playlists it hides
				continue
			}
			out = append(out, item{Type: "playlist", Name: p.Name, URI: p.URI, By: p.Owner.DisplayName})
		}
	}
	if r.Shows != nil {
		for _, s := range r.Shows.Items {
			out = append(out, item{Type: "show", Name: s.Name, URI: s.URI, By: s.Publisher})
		}
	}
	if r.Episodes != nil {
		for _, e := range r.Episodes.Items {
			if e.URI == "" {
				continue
			}
			out = append(out, item{Type: "episode", Name: e.Name, URI: e.URI, Release: e.ReleaseDate})
		}
	}
	return out
}

// albumItem is an album as a search, library or discography result; its type is Spotify's
// album_type (album, single or compilation) when known.
func albumItem(a *apiAlbum) item {
	it := item{Type: "album", Name: a.Name, URI: a.URI, By: artistNames(a.Artists), Release: a.ReleaseDate, Tracks: a.TotalTracks}
	if a.AlbumType != "" {
		it.Type = strings.ToLower(a.AlbumType)
	}
	return it
}

// trackItem is a track as a search or top-items result.
func trackItem(t *apiTrack) item {
	it := item{Type: "track", Name: t.Name, URI: t.URI, By: artistNames(t.Artists)}
	if t.Album != nil {
		it.Album = t.Album.Name
	}
	return it
}

func addCatalogTools(s *kit.Server, c *client) {
	kit.AddTool(s, kit.Tool{Name: "search_music", Toolset: toolsetCatalog, Description: "Search Spotify for tracks, albums, artists, playlists, shows or episodes.", ReadOnly: true, Idempotent: true, OpenWorld: true, Timeout: 45 * time.Second}, c.searchMusic)
	kit.AddTool(s, kit.Tool{Name: "get_item", Toolset: toolsetCatalog, Description: "Details of a Spotify track, album (with tracks), artist or playlist.", ReadOnly: true, Idempotent: true, OpenWorld: true}, c.getItem)
	kit.AddTool(s, kit.Tool{Name: "get_artist_albums", Toolset: toolsetCatalog, Description: "List a Spotify artist's albums and singles, paged.", ReadOnly: true, Idempotent: true, OpenWorld: true, Timeout: 45 * time.Second}, c.getArtistAlbums)
	kit.AddTool(s, kit.Tool{Name: "get_album_tracks", Toolset: toolsetCatalog, Description: "List a Spotify album's tracks, paged.", ReadOnly: true, Idempotent: true, OpenWorld: true}, c.getAlbumTracks)
}

type searchInput struct {
	Query  string   `json:"query" jsonschema:"e.g. 'artist:Radiohead year:1997'" schema:"minLength=1"`
	Types  []string `json:"types,omitempty" schema:"enum=track|album|artist|playlist|show|episode,minItems=1,maxItems=6,default=[\"track\"],bare=true"`
	Limit  int      `json:"limit,omitempty" jsonschema:"results per type" schema:"minimum=1,maximum=50,default=10"`
	Offset int      `json:"offset,omitempty" jsonschema:"skip this many results per type, for the next page (next_offset of the last answer)" schema:"minimum=0,maximum=1000,default=0"`
}

type searchOutput struct {
	Items      []item `json:"items"`
	NextOffset int    `json:"next_offset,omitempty"` // pass as offset for more
}

func (o searchOutput) Text() string {
	if len(o.Items) == 0 {
		return "No results."
	}
	lines := make([]string, len(o.Items))
	for i, it := range o.Items {
		lines[i] = it.describe()
	}
	s := strings.Join(lines, "\n")
	if o.NextOffset > 0 {
		s += fmt.Sprintf("\n(more: offset %d)", o.NextOffset)
	}
	return s
}

func (c *client) searchMusic(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, searchOutput{}, kit.Errorf(kit.CodeInvalidInput, "query is blank: give the words to search for")
	}
	limit := in.Limit
	// The schema bounds limit and offset, holds types to Spotify's six kinds and defaults them
	// to track (also when sent as null).
	var kinds []string
	for _, t := range in.Types {
		if !slices.Contains(kinds, t) {
			kinds = append(kinds, t)
		}
	}
	// Spotify answers at most 10 per type and page, from offsets up to 1000: fetch pages until
	// limit, the end or that offset.
	out := searchOutput{Items: []item{}}
	more := false
	for got := 0; got < limit && in.Offset+got <= searchMaxOffset; {
		n := min(searchPage, limit-got)
		res, err := c.search(ctx, in.Query, kinds, n, in.Offset+got)
		if err != nil {
			return nil, searchOutput{}, c.fail(ctx, err, "search")
		}
		out.Items = append(out.Items, searchItems(res)...)
		got += n
		more = hasNext(res)
		if !more {
			break
		}
	}
	if more && in.Offset+limit <= searchMaxOffset {
		out.NextOffset = in.Offset + limit
	}
	return nil, out, nil
}

func hasNext(r *apiSearch) bool {
	return r.Tracks != nil && r.Tracks.Next != "" || r.Albums != nil && r.Albums.Next != "" ||
		r.Artists != nil && r.Artists.Next != "" || r.Playlists != nil && r.Playlists.Next != "" ||
		r.Shows != nil && r.Shows.Next != "" || r.Episodes != nil && r.Episodes.Next != ""
}

type getItemInput struct {
	URI string `json:"uri" jsonschema:"URI or link of a track, album, artist or playlist" schema:"minLength=1"`
}

type itemOutput struct {
	item
	Genres      []string `json:"genres,omitempty"`
	Description string   `json:"description,omitempty"`
	Items       []track  `json:"items,omitempty"` // an album's tracks, a playlist's first items
}

func (o itemOutput) Text() string {
	s := o.describe()
	if o.Release != "" {
		s += ", released " + o.Release
	}
	if len(o.Genres) > 0 {
		s += "; genres: " + strings.Join(o.Genres, ", ")
	}
	if o.Description != "" {
		s += "\n" + o.Description
	}
	for i, t := range o.Items {
		s += fmt.Sprintf("\n%d. %s", i+1, t)
	}
	if n := len(o.Items); n > 0 && o.Tracks > n {
		more := map[string]string{"album": "get_album_tracks", "playlist": "get_playlist_items"}[o.Type]
		if more != "" {
			s += fmt.Sprintf("\n(%d of %d; %s with offset %d for more)", n, o.Tracks, more, n)
		}
	}
	return s
}

func (c *client) getItem(ctx context.Context, _ *mcp.CallToolRequest, in getItemInput) (*mcp.CallToolResult, itemOutput, error) {
	uri, kind, id, err := parseURI(in.URI, "")
	if err != nil {
		return nil, itemOutput{}, err
	}
	switch kind {
	case "track":
		var t apiTrack
		if err := c.object(ctx, kind, id, &t); err != nil {
			return nil, itemOutput{}, c.fail(ctx, err, uri)
		}
		out := itemOutput{item: trackItem(&t)}
		out.URI = uri
		if t.Album != nil {
			out.Release = t.Album.ReleaseDate
		}
		return nil, out, nil
	case "album":
		var a apiAlbum
		if err := c.object(ctx, kind, id, &a); err != nil {
			return nil, itemOutput{}, c.fail(ctx, err, uri)
		}
		out := itemOutput{item: item{Type: kind, Name: a.Name, URI: uri, By: artistNames(a.Artists), Release: a.ReleaseDate, Tracks: a.Tracks.Total}, Genres: a.Genres}
		for i := range a.Tracks.Items {
			out.Items = append(out.Items, a.Tracks.Items[i].compact())
		}
		return nil, out, nil
	case "artist":
		var a apiArtist
		if err := c.object(ctx, kind, id, &a); err != nil {
			return nil, itemOutput{}, c.fail(ctx, err, uri)
		}
		return nil, itemOutput{item: item{Type: kind, Name: a.Name, URI: uri}, Genres: a.Genres}, nil
	case "playlist":
		p, err := c.playlist(ctx, id)
		if err != nil {
			return nil, itemOutput{}, c.fail(ctx, err, uri)
		}
		out := itemOutput{item: item{Type: kind, Name: p.Name, URI: uri, By: p.Owner.DisplayName, Tracks: p.Items.Total}, Description: p.Description}
		for _, e := range p.Items.Items {
			if t, ok := e.track(); ok {
				out.Items = append(out.Items, t)
			}
		}
		return nil, out, nil
	}
	return nil, itemOutput{}, kit.Errorf(kit.CodeInvalidInput, "get_item handles tracks, albums, artists and playlists, not a %s", kind)
}

type artistAlbumsInput struct {
	Artist string   `json:"artist" jsonschema:"artist URI, link or id" schema:"minLength=1"`
	Groups []string `json:"groups,omitempty" jsonschema:"release groups (default: album, single)" schema:"enum=album|single|compilation|appears_on,maxItems=4"`
	paging
}

// getArtistAlbums reads GET /artists/{id}/albums in pages of at most artistAlbumsPage until
// limit, stopping at a short page: Spotify's next and total can be wrong when include_groups
// filters.
func (c *client) getArtistAlbums(ctx context.Context, _ *mcp.CallToolRequest, in artistAlbumsInput) (*mcp.CallToolResult, itemsOutput, error) {
	uri, id, err := parseKind(in.Artist, "artist")
	if err != nil {
		return nil, itemsOutput{}, err
	}
	if len(in.Groups) == 0 { // the schema's tags cannot hold a default of two values
		in.Groups = []string{"album", "single"}
	}
	var groups []string
	for _, g := range in.Groups {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	out := itemsOutput{Items: []item{}}
	more := false
	for got := 0; got < in.Limit; {
		n := min(artistAlbumsPage, in.Limit-got)
		q := url.Values{"include_groups": {strings.Join(groups, ",")}, "limit": {strconv.Itoa(n)}, "offset": {strconv.Itoa(in.Offset + got)}}
		var page apiPage[apiAlbum]
		if err := c.do(ctx, "GET", "artists/"+url.PathEscape(id)+"/albums", q, nil, &page); err != nil {
			return nil, itemsOutput{}, c.fail(ctx, err, uri)
		}
		for i := range page.Items {
			out.Items = append(out.Items, albumItem(&page.Items[i]))
		}
		out.Total = page.Total
		got += len(page.Items)
		more = len(page.Items) == n && page.Next != ""
		if !more {
			break
		}
	}
	if more {
		out.NextOffset = in.Offset + len(out.Items)
	}
	return nil, out, nil
}

type albumTracksInput struct {
	Album string `json:"album" jsonschema:"album URI, link or id" schema:"minLength=1"`
	paging
}

// getAlbumTracks reads one page of GET /albums/{id}/tracks (at most 50), for albums longer than
// the first page get_item shows.
func (c *client) getAlbumTracks(ctx context.Context, _ *mcp.CallToolRequest, in albumTracksInput) (*mcp.CallToolResult, tracksOutput, error) {
	uri, id, err := parseKind(in.Album, "album")
	if err != nil {
		return nil, tracksOutput{}, err
	}
	var page apiPage[apiTrack]
	if err := c.do(ctx, "GET", "albums/"+url.PathEscape(id)+"/tracks", in.query(), nil, &page); err != nil {
		return nil, tracksOutput{}, c.fail(ctx, err, uri)
	}
	out := tracksOutput{Items: []track{}, Total: page.Total, NextOffset: nextOffset(in.paging, len(page.Items), page.Next)}
	for i := range page.Items {
		out.Items = append(out.Items, page.Items[i].compact())
	}
	return nil, out, nil
}
