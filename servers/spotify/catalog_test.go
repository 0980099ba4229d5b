package main

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestArtistAlbums: an artist's releases are read 10 at a time (Spotify's cap for 2026 apps)
// until limit, filtered by groups, with the next offset to continue from.
func TestArtistAlbums(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	// The fake's 25 releases cycle album, single, single, compilation, appears_on: 15 are
	// albums or singles.
	for _, tc := range []struct {
		args     map[string]any
		n, next  int
		first    string
		requests int
	}{
		{map[string]any{"artist": "spotify:artist:rh"}, 15, 0, "album Release 0", 2},
		{map[string]any{"artist": "rh", "limit": 12}, 12, 12, "album Release 0", 2},
		{map[string]any{"artist": "https://open.spotify.com/artist/rh", "limit": 10, "offset": 10}, 5, 0, "single Release 16", 1},
		{map[string]any{"artist": "rh", "groups": []string{"compilation", "appears_on", "compilation"}, "limit": 50}, 10, 0, "compilation Release 3", 1},
		{map[string]any{"artist": "rh", "groups": []string{"album", "single", "compilation", "appears_on"}, "limit": 50}, 25, 0, "album Release 0", 3},
	} {
		before := len(e.fake.log())
		out, _ := mcptest.CallFor[itemsOutput](t, e.cs, "get_artist_albums", tc.args)
		var calls []string // the token refresh of the first call aside
		for _, c := range e.fake.log()[before:] {
			if strings.Contains(c, "/albums") {
				calls = append(calls, c)
			}
		}
		if len(out.Items) != tc.n || out.NextOffset != tc.next || names(out.Items)[0] != tc.first || len(calls) != tc.requests {
			t.Errorf("%v: %d items from %q, next %d, %d requests; want %d from %q, next %d, %d requests",
				tc.args, len(out.Items), names(out.Items)[0], out.NextOffset, len(calls), tc.n, tc.first, tc.next, tc.requests)
		}
		for _, c := range calls {
			_, query, _ := strings.Cut(c, "?")
			q, _ := url.ParseQuery(query)
			if n, _ := strconv.Atoi(q.Get("limit")); n > artistAlbumsPage {
				t.Errorf("asked Spotify for more than %d: %s", artistAlbumsPage, c)
			}
		}
	}
	out, res := mcptest.CallFor[itemsOutput](t, e.cs, "get_artist_albums", map[string]any{"artist": "rh", "limit": 2})
	if it := out.Items[1]; it.Type != "single" || it.URI != "spotify:album:rel1" || it.By != "Radiohead" || it.Release != "2024-01-01" || it.Tracks != 2 {
		t.Errorf("single = %+v", it)
	}
	if text := mcptest.Text(res); !strings.Contains(text, `single "Release 1" by Radiohead (spotify:album:rel1), 2024-01-01`) || !strings.Contains(text, "more: offset 2") {
		t.Errorf("text = %q", text)
	}
	if msg := mcptest.CallError(t, e.cs, "get_artist_albums", map[string]any{"artist": "spotify:album:al1"}); !strings.Contains(msg, "is an album, not an artist") {
		t.Errorf("album as artist: %q", msg)
	}
	if msg := mcptest.CallError(t, e.cs, "get_artist_albums", map[string]any{"artist": "nobody"}); msg != "spotify:artist:nobody not found" {
		t.Errorf("unknown artist: %q", msg)
	}
}

// TestAlbumTracks: an album's tracks past get_item's first page, paged by limit and offset.
func TestAlbumTracks(t *testing.T) {
	t.Parallel()
	e := start(t, true)
	it, res := mcptest.CallFor[itemOutput](t, e.cs, "get_item", map[string]any{"uri": "spotify:album:al1"})
	if it.Tracks != 12 || len(it.Items) != 2 || !strings.Contains(mcptest.Text(res), "(2 of 12; get_album_tracks with offset 2 for more)") {
		t.Errorf("get_item album = %+v, text %q", it, mcptest.Text(res))
	}
	first, _ := mcptest.CallFor[tracksOutput](t, e.cs, "get_album_tracks", map[string]any{"album": "al1", "limit": 5, "offset": 2})
	if len(first.Items) != 5 || first.Items[0].Name != "Subterranean Homesick Alien" || first.Items[0].URI != "spotify:track:a3" || first.Total != 12 || first.NextOffset != 7 {
		t.Errorf("page = %+v", first)
	}
	last, res := mcptest.CallFor[tracksOutput](t, e.cs, "get_album_tracks", map[string]any{"album": "https://open.spotify.com/album/al1", "offset": 10})
	if len(last.Items) != 2 || last.Items[1].Name != "The Tourist" || last.Items[1].Artists != "Radiohead" || last.NextOffset != 0 {
		t.Errorf("last page = %+v", last)
	}
	if text := mcptest.Text(res); text != "Lucky — Radiohead (spotify:track:a11)\nThe Tourist — Radiohead (spotify:track:a12)" {
		t.Errorf("text = %q", text)
	}
	if e.fake.called("GET /v1/albums/al1/tracks?limit=20&offset=10") == "" {
		t.Errorf("calls = %v", e.fake.log())
	}
	if msg := mcptest.CallError(t, e.cs, "get_album_tracks", map[string]any{"album": "spotify:playlist:pl1"}); !strings.Contains(msg, "is a playlist, not an album: give an album URI") {
		t.Errorf("playlist as album: %q", msg)
	}
	if msg := mcptest.CallError(t, e.cs, "get_album_tracks", map[string]any{"album": "zzz"}); msg != "spotify:album:zzz not found" {
		t.Errorf("unknown album: %q", msg)
	}
}
